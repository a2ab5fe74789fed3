//! Text that programs and run directories choose (exception messages,
//! printed output, refusal reasons, names, a summary's fields) in the
//! Markdown stagecheck writes (`summary.md`, `kinds.md`): a renderer must
//! show it as the text it is, never as HTML (`<script>`), markup, a closed
//! code span or a new line of the page. [`text`] for prose, [`code`] for
//! an inline code span, [`block`] for a fenced block. The pages have no
//! tables; a cell would also need its `|` escaped, as [`text`] does.

/// Line breaks and other control characters as visible escapes (`\n`,
/// `\r`, `\u{1b}`): one line of text stays one line.
fn one_line(s: &str) -> String {
    crate::corpus::header_value(s)
}

/// `s` as Markdown prose: `&`, `<` and `>` as character references,
/// Markdown's inline punctuation (`` \ ` * _ [ ] | ~ ``) escaped with a
/// backslash, line breaks as `\n`.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in one_line(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => out.extend(['\\', c]),
            c => out.push(c),
        }
    }
    out
}

/// The longest run of backticks in `s`.
fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `s` as an inline code span (its content shown as is, HTML included):
/// fenced by more backticks than any run in it, padded with a space where
/// it starts or ends with one, line breaks as `\n`.
pub fn code(s: &str) -> String {
    let s = one_line(s);
    let fence = "`".repeat(longest_backtick_run(&s) + 1);
    let pad = s.starts_with('`') || s.ends_with('`') || (s.starts_with(' ') && s.ends_with(' ')) || s.is_empty();
    let space = if pad { " " } else { "" };
    format!("{fence}{space}{s}{space}{fence}")
}

/// `s` as a fenced code block in `lang`, the fence longer than any run of
/// backticks in `s` (at least three), so no line of it closes the block.
pub fn block(s: &str, lang: &str) -> String {
    let fence = "`".repeat((longest_backtick_run(s) + 1).max(3));
    format!("{fence}{lang}\n{}\n{fence}", s.trim_end_matches('\n'))
}
