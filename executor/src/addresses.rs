//! Addresses in default reprs (`<function f at 0x7f3a5c0b1234>`,
//! `<C object at 0x2000...>`) differ between runs, modes and interpreters:
//! an outcome names them by order of first appearance instead
//! (`at 0x@1`, `at 0x@2`, ...), the same address the same name throughout
//! one outcome (stdout, then the exception's message, then the globals), so
//! that identity ("the same object printed twice") still compares.
//!
//! Only a default repr's address is one: ` at 0x`, at least
//! [`MIN_DIGITS`] hex digits and `>`, inside a `<` opened on the same line
//! (`<bound method C.f of <C object at 0x...>>` too). Free text a program
//! prints — `"stored at 0x7ffd12345678"` — is compared as written: were it
//! rewritten, two runs printing different numbers there would agree.

use crate::outcome::{Outcome, Terminal};
use crate::value::Value;

/// Fewer hex digits than this after ` at 0x` are not taken for an address.
pub const MIN_DIGITS: usize = 6;
const MARK: &str = " at 0x";

/// Names the addresses of `outcome` by order of appearance.
pub fn normalize(outcome: &mut Outcome) {
    let mut seen = Vec::new();
    rewrite(&mut outcome.stdout, &mut seen);
    if let Terminal::Raised { message, .. } | Terminal::Crashed { message } = &mut outcome.terminal {
        rewrite(message, &mut seen);
    }
    for (_, value) in &mut outcome.globals {
        rewrite_value(value, &mut seen);
    }
}

fn rewrite_value(value: &mut Value, seen: &mut Vec<String>) {
    match value {
        Value::Str(s) => rewrite(s, seen),
        Value::List(items) | Value::Tuple(items) | Value::Set(items) | Value::FrozenSet(items) => {
            items.iter_mut().for_each(|v| rewrite_value(v, seen))
        }
        Value::Dict(entries) => entries.iter_mut().for_each(|(k, v)| {
            rewrite_value(k, seen);
            rewrite_value(v, seen);
        }),
        Value::Instance { attrs, base, .. } => {
            attrs.iter_mut().for_each(|(_, v)| rewrite_value(v, seen));
            if let Some(b) = base {
                rewrite_value(b, seen);
            }
        }
        _ => {}
    }
}

/// `text` with its own addresses named, by their order in it alone: what a
/// long text's abbreviation is made of ([`crate::bounds`]), which the
/// outcome's naming cannot reach into.
pub fn named(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(MARK) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut owned = text.to_string();
    rewrite(&mut owned, &mut Vec::new());
    std::borrow::Cow::Owned(owned)
}

/// Rewrites the addresses of `text` in place (no allocation without one).
pub fn rewrite(text: &mut String, seen: &mut Vec<String>) {
    if !text.contains(MARK) {
        return;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        let in_repr = after[digits..].starts_with('>') && opened(&out, &rest[..at]);
        out.push_str(&rest[..at + MARK.len()]);
        if digits >= MIN_DIGITS && in_repr {
            let address = after[..digits].to_ascii_lowercase();
            let n = match seen.iter().position(|a| *a == address) {
                Some(i) => i + 1,
                None => {
                    seen.push(address);
                    seen.len()
                }
            };
            out.push_str(&format!("@{n}"));
            rest = &after[digits..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    *text = out;
}

/// Whether the text up to an address (`done`, then `before`) ends inside
/// a `<` opened on its last line: the nearest `<`, `>` or line break going
/// back is a `<`.
fn opened(done: &str, before: &str) -> bool {
    let last = |t: &str| t.rfind(['<', '>', '\n']).map(|i| t.as_bytes()[i] == b'<');
    last(before).or_else(|| last(done)).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(text: &str) -> String {
        let mut s = text.to_string();
        rewrite(&mut s, &mut Vec::new());
        s
    }

    #[test]
    fn addresses_are_named_by_first_appearance() {
        assert_eq!(
            norm("<function f at 0x7f3a5c0b1234> <C object at 0x2000aaaa> <function f at 0x7F3A5C0B1234>"),
            "<function f at 0x@1> <C object at 0x@2> <function f at 0x@1>"
        );
    }

    #[test]
    fn two_runs_with_other_addresses_normalise_alike_but_identity_still_counts() {
        assert_eq!(norm("<a at 0x1111111> <b at 0x2222222>"), norm("<a at 0x9999999> <b at 0x8888888>"));
        assert_ne!(norm("<a at 0x1111111> <b at 0x1111111>"), norm("<a at 0x9999999> <b at 0x8888888>"));
        assert_eq!(norm("<bound method C.f of <C object at 0x7f0012345678>>"), "<bound method C.f of <C object at 0x@1>>");
    }

    #[test]
    fn short_numbers_and_free_text_are_left_alone() {
        let free = ["a at 0x1111111 b", "stored at 0x7ffd12345678", "<a> at 0x1234567>", "<x\n at 0x1234567>"];
        for text in ["meet at 0x10", "x at 0x", "no address here", "at 0x123456789", "<f at 0x12>"].into_iter().chain(free) {
            assert_eq!(norm(text), text);
        }
    }
}
