//! A target finding's bug kind: what one compiler bug looks like whatever
//! program it shows in, so that one bug is one kind in `report --kinds`.
//!
//! A fuzz run saves a finding per [`crate::fuzz::signature::Signature`]
//! (under a target: both sides' text, numbers kept, so no bug hides behind
//! another's signature): one bug still makes several, `[5, 5] -> [1, 5]` and
//! `[12, 12, 12] -> [6, 9, 12]` for lambdas' late binding. Its kind is read
//! off the reduced program instead:
//!
//! - the difference's [`class`]: its kind (`stdout`, `global`, `terminal`,
//!   ...), the mode, and both sides' text with every number, quoted text
//!   and name-number taken out (`stdout unstaged [N] -> [N]`); the reducer keeps
//!   it (`src/reduce/finding.rs`), so a reduction cannot drift from one bug to
//!   another it happens to show later (the UnboundLocalError message that
//!   most generated programs print, a function's qualname);
//! - the reduced program's [`constructs`]: the keywords and operators left
//!   once everything else is gone (`def for lambda`).
//!
//! [`kind_id`] hashes both: `stdout-unstaged-k1a2b3c4d`, written on
//! `reduced.py`'s `# kind:` line and grouped by `report --kinds`.

use crate::oracles::convergence::{Difference, Verdict};

/// The class of a verdict's first difference, what a reduction under a
/// target keeps; empty when the verdict is no divergence.
pub fn class(verdict: &Verdict) -> String {
    let Verdict::Diverged { mode, differences } = verdict else { return String::new() };
    let Some(first) = differences.first() else { return String::new() };
    let what = match first {
        Difference::Stdout { original, other, .. } => changed(original, other),
        Difference::Global { original, other, .. } => {
            let show = |v: &Option<crate::executor::Value>| v.as_ref().map_or("<absent>".to_string(), |v| v.to_string());
            changed(&show(original), &show(other))
        }
        Difference::Terminal { original, other } => format!("{} -> {}", ended(original), ended(other)),
        Difference::Crash { message } | Difference::ConverterCrash { message } => shape(message),
        _ => String::new(),
    };
    format!("{} {mode} {what}", first.kind()).trim_end().to_string()
}

/// What changed from `original` to `other`: the text between their common
/// beginning and end (cut at a word's edge), each side's [`shape`]: `r [5, 5]`
/// / `r [1, 5]` and `[12, 12, 12]` / `[6, 9, 12]` are both `N -> N`, what the
/// program wraps around the value it prints being its own.
pub fn changed(original: &str, other: &str) -> String {
    // As many tokens on both sides: the tokens that differ, each pair once
    // (a line whose numbers all moved is one `N -> N`).
    let (ta, tb) = (tokens(original), tokens(other));
    if ta.len() == tb.len() && !ta.is_empty() {
        let mut pairs: Vec<String> = Vec::new();
        for (x, y) in ta.iter().zip(&tb).filter(|(x, y)| x != y) {
            let pair = format!("{} -> {}", shape(x), shape(y));
            if !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        return pairs.join("; ");
    }
    let (a, b): (Vec<char>, Vec<char>) = (original.chars().collect(), other.chars().collect());
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == '-';
    let mut start = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    while start > 0 && word(a[start - 1]) {
        start -= 1;
    }
    let mut end = a[start..].iter().rev().zip(b[start..].iter().rev()).take_while(|(x, y)| x == y).count();
    while end > 0 && word(a[a.len() - end]) {
        end -= 1;
    }
    let middle = |t: &[char]| shape(&t[start..t.len() - end].iter().collect::<String>());
    format!("{} -> {}", middle(&a), middle(&b))
}

/// A line's tokens: quoted text, runs of word characters (letters, digits,
/// `_`, `.`, a number's sign), other characters one by one; spaces dropped.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c == '\'' || c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            i = (i + 1).min(chars.len());
        } else if word(c) || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            i += 1;
            while i < chars.len() && word(chars[i]) {
                i += 1;
            }
        } else {
            i += 1;
            if c.is_whitespace() {
                continue;
            }
        }
        out.push(chars[start..i].iter().collect());
    }
    out
}

fn ended(t: &crate::executor::Terminal) -> String {
    use crate::executor::Terminal;
    match t {
        Terminal::Completed => "completed".to_string(),
        Terminal::Raised { exc_type, message, .. } => format!("raised {exc_type} {}", shape(message)),
        Terminal::Diverged { .. } => "diverged".to_string(),
        Terminal::Crashed { .. } => "crashed".to_string(),
    }
}

/// Text with what varies from program to program taken out: quoted text is
/// `'_'`, a number (sign, digits, fraction, exponent; digits inside a name
/// too) `N`, a run of `N`s separated by `, ` one `N`; at most
/// 160 characters.
pub fn shape(text: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() && out.chars().count() < 160 {
        let c = chars[i];
        let prev = if i > 0 { chars[i - 1] } else { ' ' };
        let starts_number =
            c.is_ascii_digit() || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()) && !prev.is_alphanumeric());
        if (c == '\'' || c == '"') && !prev.is_alphanumeric() {
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            i += 1;
            out.push_str("'_'");
        } else if starts_number {
            i += 1;
            let digit_after = |j: usize| chars.get(j + 1).is_some_and(|d| d.is_ascii_digit());
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || (chars[i] == '.' && digit_after(i))) {
                i += 1;
            }
            if !out.ends_with('N') {
                out.push('N');
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    // `N, N, N` -> `N`: how many numbers a program prints is its own.
    while out.contains("N, N") {
        out = out.replace("N, N", "N");
    }
    out
}

/// The Python keywords (and `:=`) a program uses that name constructs a
/// converter transforms (loops, exits, `try`, scoping, `lambda`, ...),
/// outside strings and comments, in a fixed order: what is left of a program
/// once reduction has taken out everything its bug does not need. `def`,
/// `return`, `else`, `and`/`or`/`not`, `in`, `is`, `pass` are left out: one
/// bug's reductions differ in them (lambdas printed where they are made, or
/// returned and printed by the caller).
pub fn constructs(source: &str) -> Vec<&'static str> {
    const KEYWORDS: &[&str] = &[
        "class", "lambda", "yield", "for", "while", "break", "continue", "if", "try", "except", "finally", "raise", "with", "global",
        "nonlocal", "del", "assert", "match", "async", "await", ":=",
    ];
    let mut found = vec![false; KEYWORDS.len()];
    let mark = |word: &str, found: &mut Vec<bool>| {
        if let Some(i) = KEYWORDS.iter().position(|k| *k == word) {
            found[i] = true;
        }
    };
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    let mut word = String::new();
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            i += 1;
            continue;
        }
        let prefix = std::mem::take(&mut word);
        if c == '\'' || c == '"' {
            // A string (any prefix: f, r, b): skipped, triple-quoted too.
            let triple = chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c);
            let close = if triple { 3 } else { 1 };
            i += close;
            while i < chars.len() {
                if chars[i] == '\\' {
                    i += 2;
                    continue;
                }
                if chars[i] == c && (!triple || (chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c))) {
                    i += close;
                    break;
                }
                i += 1;
            }
            continue;
        }
        mark(&prefix, &mut found);
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == ':' && chars.get(i + 1) == Some(&'=') {
            mark(":=", &mut found);
        }
        i += 1;
    }
    mark(&word, &mut found);
    KEYWORDS.iter().zip(found).filter(|(_, f)| *f).map(|(k, _)| *k).collect()
}

/// The kind of a finding whose reduced program is `source` and whose
/// verdict's class is `class`: `KIND-MODE-kXXXXXXXX` (FNV-1a of both).
pub fn kind_id(class: &str, source: &str) -> String {
    let mut h: u32 = 0x811C_9DC5;
    for b in class.bytes().chain([0u8]).chain(constructs(source).join(" ").bytes()) {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    let mut words = class.split(' ');
    let (kind, mode) = (words.next().unwrap_or("none"), words.next().unwrap_or(""));
    format!("{kind}-{mode}-k{h:08x}")
}

/// A `reduced.py`'s `# kind:` line: its id, class and constructs.
pub fn header_line(class: &str, source: &str) -> String {
    format!("# kind: {} | {} | {}", kind_id(class, source), crate::corpus::header_value(class), constructs(source).join(" "))
}

/// The kind id, class and constructs a `# kind:` line gives.
pub fn parse_header_line(line: &str) -> Option<(String, String, String)> {
    let rest = line.strip_prefix("# kind: ")?;
    let mut parts = rest.splitn(3, " | ");
    Some((parts.next()?.to_string(), parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_keep_what_a_bug_shows_and_drop_what_a_program_chose() {
        assert_eq!(shape("[5, 5]"), shape("[12, 12, 12]"));
        assert_eq!(shape("[5, 5]"), "[N]");
        assert_eq!(shape("f1 12"), shape("f7 -3"));
        assert_ne!(shape("f1 12"), shape("[1, 5]"));
        assert_eq!(shape("unbound UnboundLocalError 'v6' is used"), "unbound UnboundLocalError '_' is used");
        assert_eq!(shape("<function dec38.<locals>.w39>"), "<function decN.<locals>.wN>");
        assert_eq!(shape("1.5 x"), "N x");
    }

    #[test]
    fn a_change_is_what_differs_between_the_common_ends() {
        assert_eq!(changed("r [5, 5]", "r [1, 5]"), "N -> N");
        assert_eq!(changed("[12, 12, 12]", "[6, 9, 12]"), changed("f1 12", "f1 -3"));
        assert_eq!(changed("x 10 y", "x 105 y"), "N -> N");
        assert_eq!(changed("{'a': 240, 3: 246, 'e': 6} [6, 240]", "{'a': 240, 3: 245, 'e': 5} [5, 240]"), "N -> N");
        assert_eq!(changed("raised KeyError 'x'", "raised ValueError 'x'"), "KeyError -> ValueError");
        assert_eq!(
            changed("<function dec38.<locals>.w39>", "<function outer.<locals>.tf__dec38.<locals>.w39>"),
            "decN. -> outer.<locals>.tf__decN."
        );
        let unbound = changed(
            "UnboundLocalError cannot access local variable 'v6' where it is not associated with a value",
            "UnboundLocalError 'v6' is used before assignment",
        );
        assert_eq!(unbound, "cannot access local variable '_' where it is not associated with a value -> '_' is used before assignment");
    }

    #[test]
    fn constructs_are_keywords_outside_strings_and_comments() {
        let src = "def a():\n    b = []\n    for c in range(2):\n        b.append(lambda d: c)  # while\n    print('if', [e(0) for e in b], \"try\")\na()\n";
        assert_eq!(constructs(src), vec!["lambda", "for"]);
        assert_eq!(constructs("if (x := 1) and not y:\n    del x\n"), vec!["if", "del", ":="]);
        assert_eq!(constructs("s = '''a\n  while'''\nglobal g\n"), vec!["global"]);
    }

    #[test]
    fn one_bug_in_two_programs_is_one_kind_and_two_bugs_two() {
        let late = |a: &str| {
            format!("def a():\n    b = []\n    for c in range({a}):\n        b.append(lambda d: c)\n    print([e(0) for e in b])\na()\n")
        };
        let class = "stdout unstaged N -> N";
        assert_eq!(kind_id(class, &late("2")), kind_id(class, &late("3")));
        let unbound = "def a():\n    del b\n    b = 1\na()\n";
        assert_ne!(kind_id(class, &late("2")), kind_id(class, unbound));
        assert_ne!(kind_id(class, &late("2")), kind_id("global unstaged N -> N", &late("2")));
        assert!(kind_id(class, unbound).starts_with("stdout-unstaged-k"));
        let line = header_line(class, &late("2"));
        assert_eq!(parse_header_line(&line), Some((kind_id(class, &late("2")), class.to_string(), "lambda for".to_string())));
    }
}
