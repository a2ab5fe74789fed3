//! Command lines stagecheck prints or writes for a person to paste into a
//! shell (the replay commands of findings, reductions and reports). Their
//! arguments come from places a program or a tampered run directory
//! chooses: a target's name, a file's path, a summary's fields. Each is
//! written as one shell word that means itself ([`quote`]): bare where it is
//! plain, else in POSIX single quotes, inside which nothing is special, so
//! `tgt; touch x` stays an argument and never becomes a second command, a
//! redirection or an expansion. [`first_word`] reads such a word back (the
//! `--target` of a header's replay command).

use std::borrow::Cow;

/// `word` as one shell word: bare when every character is plain (letters,
/// digits, `-_./,:=+@%`, and not empty), else in single quotes, each `'` in
/// it written `'\''`.
pub fn quote(word: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./,:=+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return Cow::Borrowed(word);
    }
    Cow::Owned(format!("'{}'", word.replace('\'', r"'\''")))
}

/// The words as a command line, each [`quote`]d.
pub fn command<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    words.into_iter().map(|w| quote(w.as_ref()).into_owned()).collect::<Vec<_>>().join(" ")
}

/// The first shell word of `text` as the shell reads it (single quotes,
/// double quotes and backslashes undone; no expansion): `None` when there
/// is none or a quote is left open.
pub fn first_word(text: &str) -> Option<String> {
    let mut chars = text.trim_start().chars();
    let mut word = String::new();
    let mut any = false;
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => break,
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => word.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => match chars.next()? {
                        c @ ('$' | '`' | '"' | '\\') => word.push(c),
                        c => word.extend(['\\', c]),
                    },
                    c => word.push(c),
                }
            },
            '\\' => word.push(chars.next()?),
            c => word.push(c),
        }
        any = true;
    }
    any.then_some(word)
}
