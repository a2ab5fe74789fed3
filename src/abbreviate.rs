//! Long values in a difference's lines, shown around their first difference.
//!
//! A difference's two sides used to be printed whole: one global holding a
//! list of 50,000 ints made a 250 KB line of `check`'s output,
//! and the report pages, which cut values at their first 400 characters,
//! showed a head in which the two sides were the same. Every line that shows
//! a difference's values (`check`, `summary.md`, `index.html`, `corpus add`'s
//! header, the review pages) goes through [`values`] or [`texts`]: sides that
//! fit [`WIDTH`] characters are shown whole; a longer side is cut to a window
//! around the first place the two sides part ways, found by walking both
//! values together (item of a list, tuple, set or tensor, a dict's entry, a
//! str's character, an instance's builtin base), and a note says where, as a
//! Python subscript from the top:
//!
//! ```text
//! [..., 49997, 49998, -1, 50000, 50001, ...] (first difference at [49998]; 50,000 items)
//! ```
//!
//! Items next to the differing one are shown while they fit; a differing
//! item is itself cut the same way. The whole values stay in `--json`, in a
//! finding's `verdict.json` and behind `check --full`.

use crate::executor::Value;

/// The most characters of one side of a difference (its window and note
/// come to a little more); a line holding both stays under 1,000.
pub const WIDTH: usize = 300;

/// How wide a neighbour of the differing item may be before it is cut.
const NEIGHBOUR: usize = 60;

/// How many items either side of the differing one are shown at most.
const NEIGHBOURS: usize = 3;

/// A difference's two values (`None`: absent on that side), each whole
/// where it fits [`WIDTH`], else around the first place they part.
pub fn values(original: Option<&Value>, other: Option<&Value>) -> (String, String) {
    let whole = |v: Option<&Value>| v.map_or_else(|| "<absent>".to_string(), Value::to_string);
    let (a, b) = (whole(original), whole(other));
    if fits(&a, WIDTH) && fits(&b, WIDTH) {
        return (a, b);
    }
    let path = match (original, other) {
        (Some(x), Some(y)) => first_difference(x, y),
        _ => Vec::new(),
    };
    let side = |v: Option<&Value>, text: String| match v {
        Some(v) if !fits(&text, WIDTH) => format!("{} ({})", render(v, &path, WIDTH), note(v, &path)),
        _ => text,
    };
    (side(original, a), side(other, b))
}

/// Two texts (printed lines, how runs ended), each whole where it fits
/// [`WIDTH`], else a window around the first character where they part.
pub fn texts(original: &str, other: &str) -> (String, String) {
    let at = first_char_difference(original, other);
    let side = |s: &str| match fits(s, WIDTH) {
        true => s.to_string(),
        false => format!(
            "{} (first difference at character {}; {} characters)",
            char_window(s, at, WIDTH, false),
            thousands(at),
            thousands(s.chars().count())
        ),
    };
    (side(original), side(other))
}

/// One text shown alone (a message, a run's ending): whole where it fits
/// [`WIDTH`], else its head and its length.
pub fn text(s: &str) -> String {
    if fits(s, WIDTH) {
        return s.to_string();
    }
    format!("{} ({} characters)", char_window(s, 0, WIDTH, false), thousands(s.chars().count()))
}

fn fits(s: &str, width: usize) -> bool {
    s.len() <= width || s.chars().count() <= width
}

/// `n` with thousands separated by commas.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn first_char_difference(a: &str, b: &str) -> usize {
    let mut n = 0;
    for (x, y) in a.chars().zip(b.chars()) {
        if x != y {
            return n;
        }
        n += 1;
    }
    n
}

/// The items of a container, each with the key it is shown after (a dict's).
fn items(v: &Value) -> Option<Vec<(Option<&Value>, &Value)>> {
    match v {
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) | Value::FrozenSet(xs) => Some(xs.iter().map(|x| (None, x)).collect()),
        Value::Dict(entries) => Some(entries.iter().map(|(k, v)| (Some(k), v)).collect()),
        _ => None,
    }
}

/// What a value is shown through without a step of its own: a tensor's
/// elements, an instance's builtin base.
fn inner(v: &Value) -> Option<&Value> {
    match v {
        Value::Tensor { values, .. } => Some(values),
        Value::Instance { base: Some(base), .. } => Some(base),
        _ => None,
    }
}

/// The steps (item, entry or character indices) from the top of `a` and
/// `b` to the first place they differ: empty where they are not alike in
/// kind, or differ as wholes (a tensor's dtype, an instance's attributes).
fn first_difference(a: &Value, b: &Value) -> Vec<usize> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => vec![first_char_difference(x, y)],
        (Value::Tensor { dtype, shape, values }, Value::Tensor { dtype: d, shape: s, values: v }) if dtype == d && shape == s => {
            first_difference(values, v)
        }
        (Value::Instance { class, attrs, base: Some(x) }, Value::Instance { class: c, attrs: t, base: Some(y) })
            if class == c && attrs == t =>
        {
            first_difference(x, y)
        }
        _ if std::mem::discriminant(a) != std::mem::discriminant(b) => Vec::new(),
        _ => {
            let (Some(xs), Some(ys)) = (items(a), items(b)) else { return Vec::new() };
            let at = xs.iter().zip(&ys).position(|(x, y)| x != y).unwrap_or(xs.len().min(ys.len()));
            let mut path = vec![at];
            if let (Some((kx, x)), Some((ky, y))) = (xs.get(at), ys.get(at)) {
                if kx == ky {
                    path.extend(first_difference(x, y));
                }
            }
            path
        }
    }
}

/// `v` in at most about `width` characters, around the item `path` leads to.
fn render(v: &Value, path: &[usize], width: usize) -> String {
    let whole = v.to_string();
    if fits(&whole, width) {
        return whole;
    }
    match v {
        Value::Str(s) => char_window(s, path.first().copied().unwrap_or(0), width, true),
        Value::Tensor { dtype, shape, values } => format!("sc.Tensor({}, dtype={dtype}, shape={shape:?})", render(values, path, width)),
        Value::Instance { class, attrs, base: Some(base) } => {
            let attrs: String = attrs.iter().map(|(k, v)| format!(" {k}={}", render(v, &[], NEIGHBOUR))).collect();
            format!("<{class} {}{attrs}>", render(base, path, width))
        }
        _ => match items(v) {
            Some(items) => item_window(v, &items, path, width),
            None => char_window(&whole, 0, width, false),
        },
    }
}

/// A container shown as the item `path` leads to (rendered along the rest
/// of the path) and its neighbours while they fit, `...` for the rest.
fn item_window(v: &Value, items: &[(Option<&Value>, &Value)], path: &[usize], width: usize) -> String {
    let (open, close) = match v {
        Value::List(_) => ("[", "]"),
        Value::Tuple(_) if items.len() == 1 => ("(", ",)"),
        Value::Tuple(_) => ("(", ")"),
        Value::Set(_) | Value::Dict(_) => ("{", "}"),
        _ => ("frozenset({", "})"),
    };
    let at = path.first().copied().unwrap_or(0).min(items.len());
    let show = |i: usize, rest: &[usize], w: usize| {
        let (key, value) = items[i];
        let key = key.map_or(String::new(), |k| format!("{}: ", render(k, &[], NEIGHBOUR)));
        format!("{key}{}", render(value, rest, w))
    };
    let mut shown: std::collections::VecDeque<String> = Default::default();
    let (mut lo, mut hi) = (at, at);
    let mut used = 0;
    if at < items.len() {
        let first = show(at, path.get(1..).unwrap_or(&[]), width / 2);
        used = first.chars().count();
        shown.push_back(first);
        hi = at + 1;
    }
    for _ in 0..NEIGHBOURS {
        for left in [true, false] {
            let i = if left { lo.checked_sub(1) } else { Some(hi).filter(|&h| h < items.len()) };
            let Some(i) = i else { continue };
            let item = show(i, &[], NEIGHBOUR);
            if used + item.chars().count() + 2 > width {
                continue;
            }
            used += item.chars().count() + 2;
            if left {
                shown.push_front(item);
                lo = i;
            } else {
                shown.push_back(item);
                hi = i + 1;
            }
        }
    }
    let mut parts: Vec<String> = shown.into();
    if lo > 0 {
        parts.insert(0, "...".into());
    }
    if hi < items.len() {
        parts.push("...".into());
    }
    format!("{open}{}{close}", parts.join(", "))
}

/// About `width` characters of `s` around its character `at`, `…` where
/// cut; `quoted`: as a Python str literal (escaped, in quotes), the cut
/// marks inside the quotes.
fn char_window(s: &str, at: usize, width: usize, quoted: bool) -> String {
    let chars: Vec<char> = s.chars().collect();
    let shown = |c: char| if quoted { c.escape_debug().to_string() } else { c.to_string() };
    let at = at.min(chars.len());
    // A third of the window before the difference, the rest after it.
    let (mut lo, mut hi, mut used) = (at, at, 0);
    while hi < chars.len() && used < width * 2 / 3 {
        used += shown(chars[hi]).chars().count();
        hi += 1;
    }
    while lo > 0 && used < width {
        used += shown(chars[lo - 1]).chars().count();
        lo -= 1;
    }
    while hi < chars.len() && used < width {
        used += shown(chars[hi]).chars().count();
        hi += 1;
    }
    let body: String = chars[lo..hi].iter().map(|&c| shown(c)).collect();
    let (head, tail) = (if lo > 0 { "…" } else { "" }, if hi < chars.len() { "…" } else { "" });
    match quoted {
        true => format!("\"{head}{body}{tail}\""),
        false => format!("{head}{body}{tail}"),
    }
}

/// Where `path` leads in `v`, as Python subscripts from the top, and how
/// big `v` is: `first difference at [3]['b']; 50,000 items`.
fn note(v: &Value, path: &[usize]) -> String {
    // A rendering cut by its budget ends with `...` (`Value::Truncated`).
    let count = |items: Vec<(Option<&Value>, &Value)>| match items.last() {
        Some((_, Value::Truncated)) => format!("more than {} items", thousands(items.len() - 1)),
        _ => format!("{} items", thousands(items.len())),
    };
    let size = match (v, items(v)) {
        (Value::Str(s), _) => format!("{} characters", thousands(s.chars().count())),
        (_, Some(items)) => count(items),
        _ => match inner(v).and_then(items) {
            Some(items) => count(items),
            None => format!("{} characters", thousands(v.to_string().chars().count())),
        },
    };
    if path.is_empty() {
        return size;
    }
    let mut at = String::new();
    let mut here = Some(v);
    for &step in path {
        let Some(mut node) = here else { break };
        while let Some(i) = inner(node) {
            node = i;
        }
        let items = items(node).unwrap_or_default();
        match items.get(step) {
            Some((Some(key), _)) => at.push_str(&format!("[{}]", render(key, &[], NEIGHBOUR))),
            _ => at.push_str(&format!("[{step}]")),
        }
        here = items.get(step).map(|(_, v)| *v);
    }
    format!("first difference at {at}; {size}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(n: usize, changed: Option<usize>) -> Value {
        Value::List((1..=n).map(|i| Value::Int(if Some(i - 1) == changed { "-1".into() } else { i.to_string() })).collect())
    }

    #[test]
    fn a_long_list_is_shown_around_its_differing_item() {
        let (a, b) = values(Some(&ints(50_000, None)), Some(&ints(50_000, Some(49_998))));
        assert!(a.len() < 400 && b.len() < 400, "{a}\n{b}");
        assert!(
            a.starts_with("[..., ") && a.contains("49998, 49999, 50000") && a.contains("(first difference at [49998]; 50,000 items)"),
            "{a}"
        );
        assert!(b.contains("49998, -1, 50000"), "{b}");
    }

    #[test]
    fn a_nested_difference_is_named_by_its_subscripts() {
        let dict = |x: Value| Value::Dict(vec![(Value::Str("a".into()), Value::Int("1".into())), (Value::Str("b".into()), x)]);
        let (a, b) = values(Some(&dict(ints(1000, None))), Some(&dict(ints(1000, Some(3)))));
        assert!(a.contains("first difference at [\"b\"][3]; 2 items") && a.contains("\"a\": 1"), "{a}");
        assert!(b.contains("3, -1, 5"), "{b}");
    }

    #[test]
    fn short_values_and_a_shorter_list_are_shown_whole_or_at_the_end() {
        assert_eq!(values(Some(&Value::Int("1".into())), None), ("1".into(), "<absent>".into()));
        let (a, b) = values(Some(&ints(1000, None)), Some(&ints(999, None)));
        assert!(a.ends_with("999, 1000] (first difference at [999]; 1,000 items)"), "{a}");
        assert!(b.ends_with("999] (first difference at [999]; 999 items)"), "{b}");
    }

    #[test]
    fn texts_are_cut_around_their_first_differing_character() {
        let x = "a".repeat(5000) + "X" + &"b".repeat(5000);
        let y = "a".repeat(5000) + "Y" + &"b".repeat(5000);
        let (a, b) = texts(&x, &y);
        assert!(a.starts_with('…') && a.contains("aX") && a.ends_with("(first difference at character 5,000; 10,001 characters)"), "{a}");
        assert!(b.contains("aY") && b.chars().count() < 400, "{b}");
        let (s, t) = values(Some(&Value::Str(x)), Some(&Value::Str(y)));
        assert!(s.starts_with("\"…a") && s.contains("aX") && s.contains("first difference at [5000]"), "{s}");
        assert!(t.contains("aY"), "{t}");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
