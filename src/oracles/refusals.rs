//! The refusals the project intends: every way the converter or the stager
//! may decline a program on purpose, with why. A refusal that matches no
//! entry is not a verdict of its own but a finding (`refusal`, see
//! [`crate::oracles::convergence`]): a generator, converter or tracer bug that ends in a
//! refusal is seen, never counted away.
//!
//! Staging refusals are recognised by the runtime's own `StagingError`
//! class (`Terminal::Raised::refusal`), never by an exception's name.

/// One intended refusal.
pub struct Intended {
    /// The `ConversionError`'s construct, or `staging` for a `StagingError`.
    pub construct: &'static str,
    /// The reason, `*` standing for any text (a name, a dtype).
    pub pattern: &'static str,
    /// Why the project refuses rather than converts or stages.
    pub why: &'static str,
    /// A corpus entry that shows it, where there is one.
    pub example: Option<&'static str>,
}

const fn staging(pattern: &'static str, why: &'static str, example: Option<&'static str>) -> Intended {
    Intended { construct: "staging", pattern, why, example }
}

const UNSTAGEABLE: &str =
    "the original's meaning depends on a Python value the graph cannot carry or a side effect it would run once per trace";
const NOT_YET: &str = "not staged yet: refused rather than staged wrong";
const UNGUARDABLE: &str = "a trace is reused only while every Python value it read is unchanged (staging/src/tensors/guards.rs); this one cannot be checked without running user code, or is too large to check at every call";
const DEFERRED: &str = "an exception raised while tracing one path of staged control flow becomes a raise node, raised when execution takes the path; this one cannot be raised later as the original raises it (a handler of the trace would catch it now or never, its text shows a symbolic value, it carries a container the original may build anew at each raise, or its cause is the trace's own depth)";
const TARGET: &str = "a compiler under test declined the program: its refusals are its own, counted by reason";
const DTYPE: &str = "a graph value has one dtype and shape; the original changes it";

/// The table. Order does not matter; [`intended`] takes the first match.
pub const INTENDED: &[Intended] = &[
    Intended {
        construct: "syntax",
        pattern: "*",
        why: "ruff's parser (the converter's) rejects a program RustPython compiled: the converter cannot read it",
        example: None,
    },
    // A compiler under test (`--target`, targets/README.md) declined the program itself, saying
    // why (AutoGraph's ConversionError, its run-as-is fallbacks): its refusals are its own.
    Intended { construct: "target", pattern: "*", why: TARGET, example: Some("corpus/autograph/001_for_else_refused.py") },
    Intended {
        construct: "printer",
        pattern: "*",
        why: "the printer cannot print the converted tree as it is (a rewritten f-string expression that needs the f-string's own quote, which Python 3.11 does not allow; a t-string `=` form whose expression was rewritten)",
        example: None,
    },
    staging("'*' is a tensor in one branch of a staged if and a Python value in the other", DTYPE, None),
    staging("'*' has dtype/shape * in the true branch and * in the false branch of a staged if", DTYPE, None),
    staging("a return in one branch of a staged if only*", NOT_YET, Some("corpus/staged/staging_errors/006_return_in_one_branch.py")),
    staging("'*' is a Python value that a staged if changes*", UNSTAGEABLE, None),
    staging("the condition of a staged * must be a bool scalar*", DTYPE, None),
    staging("the condition of a staged * loop must stay a bool scalar tensor", DTYPE, None),
    staging("loop variable '*' stops being a tensor in a staged * loop", DTYPE, None),
    staging("loop variable '*' changes from * to * in a staged * loop", DTYPE, Some("corpus/staged/staging_errors/002_dtype_changes_in_loop.py")),
    staging("a return inside a staged * loop is not staged yet", NOT_YET, None),
    staging("'*' is a Python value that a staged * loop changes", UNSTAGEABLE, Some("corpus/staged/staging_errors/007_python_counter_in_loop.py")),
    staging("a staged for loop over a scalar tensor", "Python raises TypeError iterating a scalar; a graph loop has no such error", None),
    staging("the two values of a staged * differ in dtype/shape*", DTYPE, Some("corpus/staged/staging_errors/012_ternary_dtypes_differ.py")),
    staging("the two values of a staged * must both be tensors*", DTYPE, None),
    staging("an operand of a staged and/or is a *, not a bool tensor", DTYPE, None),
    staging("*.* inside staged control flow mutates a Python object once when traced", UNSTAGEABLE, Some("corpus/staged/staging_errors/005_list_append_in_loop.py")),
    staging("'*' is bound only inside staged control flow and read after it", UNSTAGEABLE, Some("corpus/staged/staging_errors/009_read_after_loop.py")),
    staging("'*' is bound in the * branch of a staged if only, and used after it", UNSTAGEABLE, Some("corpus/staged/staging_errors/001_bound_in_one_branch.py")),
    staging("'*' is unbound here", UNSTAGEABLE, None),
    staging(
        "a * raised in staged control flow cannot be deferred to execution: it would reach a try or with statement*",
        DEFERRED,
        Some("corpus/staged/raise/011_try_around_branch_refused.py"),
    ),
    staging(
        "a * raised in staged control flow cannot be deferred to execution: its message shows a symbolic tensor*",
        DEFERRED,
        Some("corpus/staged/raise/012_symbolic_message_refused.py"),
    ),
    staging(
        "a * raised in staged control flow cannot be deferred to execution: its arguments or attributes hold a list*",
        DEFERRED,
        Some("corpus/staged/raise/013_mutable_payload_refused.py"),
    ),
    staging("a RecursionError raised in staged control flow cannot be deferred to execution*", DEFERRED, None),
    staging("a staged function that may raise at execution is called inside a try or with statement*", DEFERRED, None),
    staging("`not` of a symbolic tensor used as a value*", UNSTAGEABLE, Some("corpus/staged/staging_errors/008_not_as_value.py")),
    staging("a while loop whose condition becomes symbolic inside the loop", NOT_YET, None),
    staging("the result type of the recursive staged function '*' could not be inferred*", NOT_YET, None),
    staging("* of a symbolic tensor: its value is not known while tracing", UNSTAGEABLE, Some("corpus/staged/staging_errors/011_python_float_of_symbolic.py")),
    staging("iterating over a symbolic tensor in Python*", UNSTAGEABLE, Some("corpus/staged/staging_errors/014_comprehension_over_symbolic.py")),
    staging("indexing with a symbolic tensor is supported for one scalar index only*", NOT_YET, None),
    // Gradients (staging/runtime/stagecheck/gradients): what the tape does not differentiate in a graph yet.
    staging("a gradient through a list in staged control flow is not staged yet", NOT_YET, None),
    staging("a gradient of a gradient through a staged * is not staged yet", NOT_YET, None),
    staging("a gradient through a staged * is not staged yet*", NOT_YET, None),
    staging("a gradient reached through one branch of a staged if only*", UNSTAGEABLE, None),
    staging("a recursive call of the staged function '*' under a gradient tape is not differentiated yet", NOT_YET, None),
    staging("sc.py_function '*' on a gradient tape's path in a staged function: its graph node is not differentiated*", NOT_YET, None),
    staging(
        "the trace of '*' reads *: it cannot be guarded without running its code, so a later change could not be seen",
        UNGUARDABLE,
        Some("corpus/staged/staging_errors/016_unguardable_read.py"),
    ),
    staging("the trace of '*' reads more Python state than can be guarded*", UNGUARDABLE, None),
    staging("a symbolic tensor used after its trace ended", UNSTAGEABLE, None),
    staging("a symbolic tensor of another trace is used in '*'*", NOT_YET, None),
    // Staged side effects: print, assert, sc.Variable, sc.py_function.
    staging("print of a * holding a symbolic tensor*", UNSTAGEABLE, Some("corpus/staged/print/005_print_dict_of_symbolic.py")),
    staging("print's *= is a tensor", UNSTAGEABLE, None),
    staging("an sc.Variable created inside a staged function*", UNSTAGEABLE, None),
    staging("assigning a * value to an sc.Variable of *: a Variable keeps its dtype and shape", DTYPE, Some("corpus/staged/variables/003_variable_dtype_change.py")),
    staging("numpy() of an sc.Variable inside a staged function*", UNSTAGEABLE, None),
    staging("the text of an sc.Variable inside a staged function*", UNSTAGEABLE, None),
    staging("sc.py_function '*' returned a value of shape *", DTYPE, None),
    // Lists in staged control flow (staging/runtime/stagecheck/staging/lists.py).
    staging(
        "list '*' holds * tensors in staged control flow (the dtype and shape of its first element); appending *",
        DTYPE,
        Some("corpus/staged/lists/007_append_dtype_mismatch.py"),
    ),
    staging("list '*' is changed in staged control flow: its elements must *", DTYPE, None),
    staging("list.* inside staged control flow on list '*', which is also held elsewhere*", UNSTAGEABLE, None),
    staging("list '*' is built in staged control flow: *", NOT_YET, None),
    staging("list '*': a list built in staged control flow supports append(tensor), pop(), len() and sc.stack() only*", NOT_YET, None),
    staging("* of list '*' inside a staged * that does not carry it*", NOT_YET, None),
    staging("* list '*' * staged control flow before any append*", NOT_YET, None),
    staging("a list built in staged control flow is returned or passed on as a Python list*", NOT_YET, None),
    staging("the shape of a stacked list built in a staged loop: its length is known only at execution", NOT_YET, None),
    staging("* on (*) *: a list's length is known only at execution", NOT_YET, None),
];

/// The entry a refusal matches, if any.
pub fn intended(construct: &str, reason: &str) -> Option<&'static Intended> {
    INTENDED.iter().find(|i| matches(i.construct, construct) && matches(i.pattern, reason))
}

/// `*` matches any text (also none); everything else literally, whole.
pub fn matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_whole_texts_with_any_text_for_a_star() {
        assert!(matches("'*' changes", "'x' changes"));
        assert!(matches("a*b*c", "abc"));
        assert!(matches("*", ""));
        assert!(!matches("'*' changes", "'x' changes twice"));
        assert!(!matches("a*b", "a"));
        assert!(!matches("exact", "exactly"));
    }

    /// Each example is a corpus entry that expects a refusal; the corpus
    /// replay (tests/corpus.rs) then proves it is refused by an intended one
    /// (an unintended refusal is a divergence there).
    #[test]
    fn every_example_is_a_corpus_entry_expecting_a_refusal() {
        for entry in INTENDED.iter().filter_map(|i| i.example) {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(entry);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{entry}: {e}"));
            assert!(text.lines().any(|l| l.trim() == "# expect: refused"), "{entry} does not expect a refusal");
        }
    }

    #[test]
    fn a_tracer_bug_is_not_an_intended_refusal() {
        assert!(intended("staging", "invalid graph: node 3 reads x7 before it is defined").is_none());
        assert!(intended("staging", "'x' is a Python value that a staged while loop changes").is_some());
        // Exits inside `finally` are converted: refusing one is a finding.
        assert!(intended("return in finally", "an exit inside `finally` cancels a pending exception or return").is_none());
        assert!(intended("internal error", "the converter failed").is_none());
    }
}
