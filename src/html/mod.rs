//! Self-contained HTML pages: inline CSS, inline SVG plots ([`svg`]), no
//! scripts, nothing fetched. [`report_page`] renders a fuzz report's
//! `index.html`; [`review`] the corpus review (a page per entry, an index).
//! Every text that comes from a program, a run or a file goes through
//! [`escape`].

pub mod report_page;
pub mod review;
pub mod svg;

use std::fmt::Write as _;

/// Text made safe for element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A relative link (`href` is a path below the page's directory; each
/// segment is percent-encoded where it must be).
pub fn link(href: &str, text: &str) -> String {
    let mut encoded = String::new();
    for b in href.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => encoded.push(b as char),
            _ => {
                let _ = write!(encoded, "%{b:02X}");
            }
        }
    }
    format!("<a href=\"{encoded}\">{}</a>", escape(text))
}

/// The visible mark of a divergent cell or line (next to its `divergent` class).
pub const MARKER: &str = "<span class=\"marker\" title=\"differs from the original\">≠</span>";

/// A whole page: `body` is HTML, `title` text.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n<footer>stagecheck {}</footer>\n</body>\n</html>\n",
        escape(title),
        env!("CARGO_PKG_VERSION")
    )
}

/// A table: `head` cells are text, `rows` cells HTML; a row's class comes first.
pub fn table(class: &str, head: &[&str], rows: &[(String, Vec<String>)]) -> String {
    let mut t = format!("<table class=\"{class}\">\n<thead><tr>");
    for h in head {
        let _ = write!(t, "<th>{}</th>", escape(h));
    }
    t.push_str("</tr></thead>\n<tbody>\n");
    for (row_class, cells) in rows {
        if row_class.is_empty() {
            t.push_str("<tr>");
        } else {
            let _ = write!(t, "<tr class=\"{row_class}\">");
        }
        for c in cells {
            let _ = write!(t, "<td>{c}</td>");
        }
        t.push_str("</tr>\n");
    }
    t.push_str("</tbody>\n</table>\n");
    t
}

const CSS: &str = r#"
:root { --fg: #1d232a; --muted: #5f6b76; --line: #d8dee4; --bg-soft: #f5f7f9; --bad: #b42318; --bad-bg: #fdecea; --good: #1a7f37; --good-bg: #e9f6ec; --warn-bg: #fff6db; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); margin: 0 auto; padding: 24px 32px 48px; max-width: 1280px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 16px 0 6px; }
p.sub { color: var(--muted); margin: 0 0 16px; }
a { color: #0b63c5; text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, .src { font: 12.5px/1.45 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0 8px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 110px; background: var(--bg-soft); }
.card .n { font-size: 20px; font-weight: 600; }
.card .l { color: var(--muted); font-size: 12px; }
.card.bad { background: var(--bad-bg); border-color: #f3b8b2; }
.card.good { background: var(--good-bg); border-color: #b5dfc0; }
table { border-collapse: collapse; margin: 6px 0 12px; width: 100%; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg-soft); font-weight: 600; }
tbody tr:nth-child(even) { background: #fbfcfd; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 16px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 8px; }
figure svg { max-width: 100%; height: auto; display: block; }
.plots figure svg { width: 100%; }
svg text { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: #333; }
svg .title { font-size: 13px; font-weight: 600; }
svg .grid { stroke: #e7ebef; }
svg .axis { stroke: #8a949e; }
svg .rule { stroke: var(--bad); stroke-dasharray: 4 3; }
svg .bar { fill: #4a7fd4; }
svg .bar.low { fill: #e0796f; }
svg polyline { fill: none; stroke-width: 2; }
.divergent { background: var(--bad-bg) !important; box-shadow: inset 3px 0 0 var(--bad); }
.marker { color: var(--bad); font-weight: 700; margin-right: 4px; }
.refused-line { background: var(--warn-bg) !important; }
.pass { color: var(--good); font-weight: 600; }
.fail { color: var(--bad); font-weight: 600; }
tr.fail td { background: var(--bad-bg); }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; border: 1px solid var(--line); background: var(--bg-soft); }
.badge.diverged { background: var(--bad-bg); border-color: #f3b8b2; color: var(--bad); }
.badge.refused { background: var(--warn-bg); border-color: #f0d58a; }
.badge.agree { background: var(--good-bg); border-color: #b5dfc0; color: var(--good); }
table.source { table-layout: fixed; }
table.source td { padding: 0 6px; border-top: none; border-bottom: none; white-space: pre-wrap; word-break: break-word; }
table.source td.ln { width: 44px; color: var(--muted); text-align: right; user-select: none; background: var(--bg-soft); }
table.source td.from { width: 56px; color: var(--muted); text-align: right; font-size: 11px; background: var(--bg-soft); }
table.source tbody tr:nth-child(even) { background: none; }
table.source tr.head td { background: var(--bg-soft); font-weight: 600; border-bottom: 1px solid var(--line); }
table.source tr.gen td.conv { color: #6b5b95; }
table.outcomes td pre { max-height: 320px; overflow: auto; }
.stdout-line { display: block; min-height: 1.45em; }
table.entries td:last-child { font-size: 11px; word-break: break-all; }
.muted { color: var(--muted); }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
"#;
