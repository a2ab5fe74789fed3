//! The reducer: shrinks a program while a predicate ("still interesting")
//! holds, by greedy passes over its AST tried to a fixpoint, cheapest and
//! biggest cuts first (the C-Reduce / ddmin recipe on Python's tree):
//!
//! | pass | file |
//! |---|---|
//! | delete statements: whole lists, halves, ..., single statements | `statements.rs` |
//! | replace a compound statement by one of its bodies | `statements.rs` |
//! | drop `elif`/`else`/`except`/`finally` clauses, `match` cases | `statements.rs` |
//! | `x = f()` → `f()`; `a, b = x, y` → one assignment per name | `statements.rs` |
//! | replace an expression by a literal or a subexpression | `expressions.rs` |
//! | shorten lists, tuples, dicts, argument lists, `and`/`or` chains | `expressions.rs` |
//! | drop a function's parameter and its argument in every call | `parameters.rs` |
//! | shrink integer literals toward 0 | `literals.rs` |
//! | inline a variable assigned once | `names.rs` |
//! | rename to `a`, `b`, `c`, ... (once, at the end) | `names.rs` |
//!
//! Every candidate is printed and parsed again by the converter's own
//! parser and printer (`stagecheck_transformer::syntax`); one that does not
//! parse is never tested. A candidate is kept only when it is smaller than
//! the current program: fewer AST nodes, or as many and shorter text, or as
//! long and lexicographically first (`x` → `0`, `60` → `30`), so reduction
//! always ends; candidates already tried are not tried again. The predicate is generic: [`finding`] makes
//! one from `check` (a finding's kind and mode still hold), tests use plain
//! closures.

pub mod expressions;
pub mod finding;
pub mod literals;
pub mod names;
pub mod parameters;
pub mod statements;
pub mod tree;

use stagecheck_transformer::syntax::{self, ast::Suite};
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

/// One kind of reduction: numbered sites, each with candidate trees.
pub struct Pass {
    pub name: &'static str,
    /// How many sites the tree has.
    pub sites: fn(&Suite) -> usize,
    /// The candidates at one site, each a whole new tree, most aggressive first.
    pub candidates: fn(&Suite, usize) -> Vec<Suite>,
}

/// Tried in this order, round after round, until a round changes nothing.
pub const PASSES: &[Pass] = &[
    statements::DELETE,
    statements::FLATTEN,
    statements::CLAUSES,
    statements::ASSIGNMENTS,
    expressions::REPLACE,
    expressions::SHORTEN,
    parameters::PARAMETERS,
    literals::INTEGERS,
    names::INLINE,
];

/// Tried once the rounds are done: shorter names, for the reader.
pub const LAST: &[Pass] = &[names::RENAME];

/// What a reduction reached.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The smallest program the predicate held for.
    pub source: String,
    /// Candidates tested (predicate calls).
    pub tests: usize,
    /// False when the time budget ran out before a fixpoint.
    pub complete: bool,
    pub elapsed: Duration,
    pub lines_before: usize,
    pub lines_after: usize,
}

/// Where a reduction stands, after each pass.
pub struct Progress<'a> {
    pub pass: &'a str,
    pub tests: usize,
    pub lines: usize,
    pub elapsed: Duration,
}

/// Lines of code: neither blank nor comments.
pub fn lines(source: &str) -> usize {
    source.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).count()
}

struct Search<'p> {
    tree: Suite,
    current: String,
    /// Nodes in `tree`.
    size: usize,
    seen: HashSet<u64>,
    tests: usize,
    started: Instant,
    deadline: Instant,
    interesting: &'p mut dyn FnMut(&str) -> bool,
}

impl Search<'_> {
    fn out_of_time(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// Tests `candidate`; keeps it when smaller and still interesting.
    fn try_candidate(&mut self, candidate: &Suite) -> bool {
        // Literals as written in the current text, which the tree's ranges
        // refer to (a literal a pass made has no range: printed from its value).
        let text = syntax::unparse_from(&self.current, candidate);
        let size = tree::nodes(candidate);
        let smaller = (size, text.len(), text.as_str()) < (self.size, self.current.len(), self.current.as_str());
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        if !smaller || !self.seen.insert(h.finish()) {
            return false;
        }
        // The printed candidate must read back (a `try` left without
        // handlers, say, does not); the tree kept is the one read back.
        let Ok(tree) = syntax::parse(&text) else { return false };
        self.tests += 1;
        if (self.interesting)(&text) {
            self.tree = tree;
            self.current = text;
            self.size = size;
            return true;
        }
        false
    }

    /// One pass over every site; true when it changed the program.
    fn run(&mut self, pass: &Pass) -> bool {
        let mut changed = false;
        let mut site = 0;
        while site < (pass.sites)(&self.tree) {
            let mut kept = false;
            for candidate in (pass.candidates)(&self.tree, site) {
                if self.out_of_time() {
                    return changed;
                }
                if self.try_candidate(&candidate) {
                    kept = true;
                    break;
                }
            }
            // A kept candidate changed this site: try it again.
            if kept {
                changed = true;
            } else {
                site += 1;
            }
        }
        changed
    }
}

/// Shrinks `source` while `interesting` holds, for at most `budget`.
/// `source` itself is taken to be interesting. `Err` when it does not parse.
pub fn reduce(
    source: &str,
    budget: Duration,
    interesting: &mut dyn FnMut(&str) -> bool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Reduction, String> {
    let tree = syntax::parse(source)?;
    let started = Instant::now();
    let mut search = Search {
        size: tree::nodes(&tree) + 1,
        tree,
        current: source.to_string(),
        seen: HashSet::new(),
        tests: 0,
        started,
        deadline: started + budget,
        interesting,
    };
    // The program as the printer prints it (comments gone) comes first.
    let printed = search.tree.clone();
    search.try_candidate(&printed);
    let mut report = |search: &Search, pass: &str| {
        progress(&Progress { pass, tests: search.tests, lines: lines(&search.current), elapsed: search.started.elapsed() })
    };
    let mut fixpoint = false;
    while !fixpoint && !search.out_of_time() {
        fixpoint = true;
        for pass in PASSES {
            fixpoint &= !search.run(pass);
            report(&search, pass.name);
        }
    }
    for pass in LAST {
        search.run(pass);
        report(&search, pass.name);
    }
    Ok(Reduction {
        complete: fixpoint && !search.out_of_time(),
        lines_before: lines(source),
        lines_after: lines(&search.current),
        source: search.current,
        tests: search.tests,
        elapsed: started.elapsed(),
    })
}
