//! `stagecheck corpus review`: one page per corpus entry and an index. A
//! page shows the entry's header, its verdict against the expected one, each
//! mode's outcome (how it ended, stdout, globals) with what differs from the
//! original marked `divergent`, the original and converted source side by
//! side (aligned by the source map), and the graphs the staged run traced.
//! Each entry runs as `corpus replay` runs it ([`Entry::check`]): an entry
//! with a `# target:` on that target, its page showing the target's runs
//! (the target's converted source is its own: not shown), and one whose
//! target cannot run here is listed as skipped, saying why ([`Entry::skip`]),
//! so that the review's counts are replay's.

use super::report_page::difference_html;
use super::{escape, link, page, table, MARKER};
use crate::check::CheckReport;
use crate::corpus::{files, Entry, Expect};
use crate::executor::{Config, Outcome};
use crate::fuzz::report::atomic_write;
use crate::modes::{Mode, ModeRun};
use crate::oracles::convergence::{compare, Difference, Verdict};
use crate::worker::Worker;
use stagecheck_transformer::{convert, Conversion};
use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;
use std::path::Path;

/// One reviewed entry, as the index lists it.
pub struct Reviewed {
    pub path: String,
    pub id: String,
    pub construct: String,
    pub expect: Option<Expect>,
    /// `agree`, `refused`, `diverged`, or why the entry could not be checked.
    pub actual: String,
    /// `Ok` when the verdict is the expected one (or the entry was skipped).
    pub pass: Result<(), String>,
    /// Why the entry was not run: its target cannot run here (replay's `SKIP` line).
    pub skipped: Option<String>,
    /// The entry's page, relative to the index (none for an unreadable entry).
    pub page: Option<String>,
}

/// Reviews every entry under `dir`, writing `out/<id>.html` and `out/index.html`.
pub fn review(dir: &Path, out: &Path) -> Result<Vec<Reviewed>, String> {
    let paths = files(dir);
    if paths.is_empty() {
        return Err(format!("{}: no .py files (is it the corpus directory?)", dir.display()));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut worker = Worker::new(Config::default());
    let mut names = HashSet::new();
    let mut reviewed = Vec::new();
    for p in &paths {
        let path = p.display().to_string();
        let entry = match Entry::load(p) {
            Ok(e) => e,
            Err(e) => {
                let actual = "unreadable header".to_string();
                reviewed.push(Reviewed {
                    path,
                    id: String::new(),
                    construct: String::new(),
                    expect: None,
                    actual,
                    pass: Err(e),
                    skipped: None,
                    page: None,
                });
                continue;
            }
        };
        if let Some(skip) = entry.skip() {
            let actual = "skipped".to_string();
            reviewed.push(Reviewed {
                path,
                id: entry.id,
                construct: entry.construct,
                expect: Some(entry.expect),
                actual,
                pass: Ok(()),
                skipped: Some(skip),
                page: None,
            });
            continue;
        }
        let report = entry.check(&mut worker);
        let pass = report.as_ref().map_err(Clone::clone).and_then(|r| entry.judge(&r.verdict));
        let actual = match &report {
            Ok(r) => verdict_name(&r.verdict).to_string(),
            Err(e) => e.clone(),
        };
        // A target converts in its own runtime; ours would be another program.
        let conversion = match &entry.target {
            Some(target) => Err(format!(
                "<p class=\"muted\">Converted by the target {} in its own runtime: its converted source is not shown.</p>",
                escape(target)
            )),
            None => convert(&entry.source, &path)
                .map_err(|e| format!("<p class=\"refused-line\">Not converted: {}</p>", escape(&e.to_string()))),
        };
        let name = page_name(&entry.id, &mut names);
        let html = entry_page(&entry, &report, conversion.as_ref().map_err(Clone::clone), &pass);
        atomic_write(&out.join(&name), html.as_bytes()).map_err(|e| format!("{}: {e}", out.join(&name).display()))?;
        reviewed.push(Reviewed {
            path,
            id: entry.id,
            construct: entry.construct,
            expect: Some(entry.expect),
            actual,
            pass,
            skipped: None,
            page: Some(name),
        });
    }
    let index = index_page(dir, &reviewed);
    atomic_write(&out.join("index.html"), index.as_bytes()).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(reviewed)
}

fn verdict_name(v: &Verdict) -> &'static str {
    match v {
        Verdict::Agree => "agree",
        Verdict::Refused { .. } => "refused",
        Verdict::Diverged { .. } => "diverged",
    }
}

fn expect_name(e: Expect) -> &'static str {
    match e {
        Expect::Agree => "agree",
        Expect::Refused => "refused",
        Expect::Diverged => "diverged",
    }
}

/// A file name for an entry's page: its id with unsafe characters replaced,
/// made unique.
fn page_name(id: &str, taken: &mut HashSet<String>) -> String {
    let base: String = id.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    let base = if base.is_empty() || base.starts_with('.') || base == "index" { format!("entry-{base}") } else { base };
    let mut name = format!("{base}.html");
    let mut n = 1;
    while !taken.insert(name.clone()) {
        n += 1;
        name = format!("{base}-{n}.html");
    }
    name
}

fn badge(text: &str) -> String {
    format!("<span class=\"badge {0}\">{0}</span>", escape(text))
}

fn index_page(dir: &Path, reviewed: &[Reviewed]) -> String {
    let failed = reviewed.iter().filter(|r| r.pass.is_err()).count();
    let skipped = reviewed.iter().filter(|r| r.skipped.is_some()).count();
    let count = |v: &str| reviewed.iter().filter(|r| r.actual == v).count();
    let mut b = format!(
        "<h1>Corpus review</h1>\n<p class=\"sub\">{}: {} entries</p>\n<div class=\"cards\">",
        escape(&dir.display().to_string()),
        reviewed.len()
    );
    for (class, n, l) in [
        ("good", reviewed.len() - failed - skipped, "as expected"),
        (if failed > 0 { "bad" } else { "" }, failed, "not as expected"),
        ("", skipped, "skipped (target cannot run here)"),
        ("", count("agree"), "agree"),
        ("", count("refused"), "refused"),
        ("", count("diverged"), "diverged (accepted or not)"),
    ] {
        let _ = write!(b, "<div class=\"card {class}\"><div class=\"n\">{n}</div><div class=\"l\">{l}</div></div>");
    }
    b.push_str("</div>\n");
    let rows: Vec<(String, Vec<String>)> = reviewed
        .iter()
        .map(|r| {
            let id = match &r.page {
                Some(p) => link(p, &r.id),
                None => escape(&r.path),
            };
            let actual = if matches!(r.actual.as_str(), "agree" | "refused" | "diverged") { badge(&r.actual) } else { escape(&r.actual) };
            let result = match (&r.pass, &r.skipped) {
                (Ok(()), Some(skip)) => format!("<span class=\"muted\">{}</span>", escape(skip)),
                (Ok(()), None) => "<span class=\"pass\">pass</span>".to_string(),
                (Err(e), _) => format!("<span class=\"fail\">fail</span> <span class=\"muted\">{}</span>", escape(e)),
            };
            let cells = vec![
                id,
                escape(&r.construct),
                r.expect.map_or(String::new(), |e| badge(expect_name(e))),
                actual,
                result,
                format!("<code>{}</code>", escape(&r.path)),
            ];
            (if r.pass.is_err() { "fail".to_string() } else { String::new() }, cells)
        })
        .collect();
    b.push_str(&table("entries", &["id", "construct", "expected", "actual", "result", "file"], &rows));
    page("Corpus review", &b)
}

/// What differs in each mode, against the original.
struct ModeDiff {
    mode: Mode,
    differences: Vec<Difference>,
}

fn mode_differences(report: &CheckReport) -> Vec<ModeDiff> {
    let Some((_, ModeRun::Ran { outcome: original })) = report.runs.first() else { return Vec::new() };
    let mut out = Vec::new();
    for (mode, run) in &report.runs[1..] {
        let differences = match run {
            ModeRun::Ran { outcome } => compare(original, outcome),
            ModeRun::Uncompilable { message, line } => vec![Difference::Uncompilable { message: message.clone(), line: *line }],
            ModeRun::ConverterCrashed { message } => vec![Difference::ConverterCrash { message: message.clone() }],
            ModeRun::Refused { .. } => Vec::new(),
        };
        out.push(ModeDiff { mode: *mode, differences });
    }
    out
}

fn entry_page(
    entry: &Entry,
    report: &Result<CheckReport, String>,
    conversion: Result<&Conversion, String>,
    pass: &Result<(), String>,
) -> String {
    let mut b = format!(
        "<p class=\"sub\">{}</p>\n<h1>{}</h1>\n<p class=\"sub\"><code>{}</code> · construct {} · modes {}{}</p>\n",
        link("index.html", "← corpus review"),
        escape(&entry.id),
        escape(&entry.path.display().to_string()),
        escape(&entry.construct),
        escape(&entry.modes.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ")),
        entry.target.as_ref().map_or(String::new(), |t| format!(" · run on the target <b>{}</b>", escape(t)))
    );
    let actual = report.as_ref().map_or("error", |r| verdict_name(&r.verdict));
    let _ = write!(b, "<p>expected {} · actual {} · ", badge(expect_name(entry.expect)), badge(actual));
    match pass {
        Ok(()) => b.push_str("<span class=\"pass\">as expected</span></p>\n"),
        Err(e) => {
            let _ = write!(b, "<span class=\"fail\">not as expected</span></p>\n<pre class=\"fail\">{}</pre>\n", escape(e));
        }
    }
    let header: Vec<&str> = entry.source.lines().take_while(|l| l.starts_with('#')).collect();
    if !header.is_empty() {
        let _ = writeln!(b, "<pre class=\"muted\">{}</pre>", escape(&header.join("\n")));
    }
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            let _ = write!(b, "<h2>Check</h2>\n<pre class=\"fail\">{}</pre>\n", escape(e));
            b.push_str(&source_section(&entry.source, conversion, &BTreeSet::new(), &BTreeSet::new(), None));
            return page(&entry.id, &b);
        }
    };
    let diffs = mode_differences(report);
    b.push_str("<h2 id=\"verdict\">Verdict</h2>\n");
    match &report.verdict {
        Verdict::Agree => b.push_str("<p>Every mode agrees with the original.</p>\n"),
        Verdict::Refused { mode, construct, reason, line } => {
            let kind = if construct == "staging" { "StagingError" } else { "ConversionError" };
            let _ = writeln!(
                b,
                "<p class=\"refused-line\">{} refused it at line {line}: {kind}: {}: {}</p>",
                escape(mode.name()),
                escape(construct),
                escape(reason)
            );
        }
        Verdict::Diverged { .. } => {
            b.push_str("<ul class=\"differences\">\n");
            for d in &diffs {
                for difference in &d.differences {
                    let _ = writeln!(b, "<li>{}</li>", difference_html(d.mode, difference));
                }
            }
            b.push_str("</ul>\n");
        }
    }
    b.push_str("<h2 id=\"outcomes\">Outcomes</h2>\n");
    b.push_str(&outcomes_table(report, &diffs));

    // Lines the differences name: the raising lines of differing endings
    // (original lines in every mode), a refusal's line, a compile error's
    // converted line.
    let mut hot = BTreeSet::new();
    let mut hot_converted = BTreeSet::new();
    for d in &diffs {
        for difference in &d.differences {
            match difference {
                Difference::Terminal { original, other } => {
                    for t in [original, other] {
                        if let crate::executor::Terminal::Raised { line: Some(l), .. } = t {
                            hot.insert(*l);
                        }
                    }
                }
                Difference::Uncompilable { line, .. } => {
                    hot_converted.insert(*line);
                }
                _ => {}
            }
        }
    }
    let refused = match &report.verdict {
        Verdict::Refused { line, .. } => Some(*line),
        _ => None,
    };
    b.push_str(&source_section(&entry.source, conversion, &hot, &hot_converted, refused));

    let graph = report.runs.iter().find_map(|(m, r)| match r {
        ModeRun::Ran { outcome } if *m == Mode::Staged && !outcome.graph.is_empty() => Some(outcome.graph.as_str()),
        _ => None,
    });
    if let Some(graph) = graph {
        let _ = write!(b, "<h2 id=\"graph\">Graph (staged)</h2>\n<pre class=\"graph\">{}</pre>\n", escape(graph));
    } else if entry.modes.contains(&Mode::Staged) && entry.target.is_none() {
        b.push_str("<h2 id=\"graph\">Graph (staged)</h2>\n<p class=\"muted\">Nothing was traced.</p>\n");
    }
    page(&entry.id, &b)
}

/// A cell's HTML, marked when it differs from the original's.
fn cell(html: String, divergent: bool) -> String {
    if divergent {
        format!("<div class=\"divergent\">{MARKER}{html}</div>")
    } else {
        html
    }
}

fn outcomes_table(report: &CheckReport, diffs: &[ModeDiff]) -> String {
    let modes: Vec<&str> = report.runs.iter().map(|(m, _)| m.name()).collect();
    let differs = |mode: Mode, f: &dyn Fn(&Difference) -> bool| diffs.iter().any(|d| d.mode == mode && d.differences.iter().any(f));
    let mut rows = Vec::new();
    let ended: Vec<String> = report
        .runs
        .iter()
        .map(|(mode, run)| match run {
            ModeRun::Ran { outcome } => cell(
                escape(&outcome.terminal.to_string()),
                differs(*mode, &|d| matches!(d, Difference::Terminal { .. } | Difference::Crash { .. })),
            ),
            ModeRun::Refused { error } => format!(
                "<div class=\"refused-line\">refused at line {}: {}: {}</div>",
                error.line,
                escape(&error.construct),
                escape(&error.reason)
            ),
            ModeRun::Uncompilable { message, line } => cell(format!("does not compile (converted line {line}): {}", escape(message)), true),
            ModeRun::ConverterCrashed { message } => cell(format!("crashed in conversion: {}", escape(message)), true),
        })
        .collect();
    rows.push((String::new(), std::iter::once("<b>ended</b>".to_string()).chain(ended).collect()));
    let stdout: Vec<String> = report
        .runs
        .iter()
        .map(|(mode, run)| {
            let line = diffs.iter().filter(|d| d.mode == *mode).flat_map(|d| &d.differences).find_map(|d| match d {
                Difference::Stdout { line, .. } => Some(*line),
                _ => None,
            });
            outcome(run).map_or(String::new(), |o| stdout_html(o, line))
        })
        .collect();
    rows.push((String::new(), std::iter::once("<b>stdout</b>".to_string()).chain(stdout).collect()));
    let mut names: Vec<&str> = Vec::new();
    for (_, run) in &report.runs {
        for (name, _) in outcome(run).map_or(&[][..], |o| &o.globals[..]) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    for name in names {
        let value_in = |run| global(run, name);
        // A long value is cut around where it parts from the original's (the
        // original's own, from the first run that differs from it).
        let original = report.runs.first().and_then(|(_, run)| value_in(run));
        let differing = report.runs.iter().skip(1).map(|(_, run)| value_in(run)).find(|v| *v != original).flatten();
        let values: Vec<String> = report
            .runs
            .iter()
            .enumerate()
            .map(|(i, (mode, run))| {
                let Some(_) = outcome(run) else { return String::new() };
                let against = if i == 0 { differing.or(original) } else { original };
                let text = match value_in(run) {
                    Some(v) => format!("<code>{}</code>", escape(&crate::abbreviate::values(against, Some(v)).1)),
                    None => "<span class=\"muted\">(absent)</span>".to_string(),
                };
                cell(text, differs(*mode, &|d| matches!(d, Difference::Global { name: n, .. } if n == name)))
            })
            .collect();
        rows.push((String::new(), std::iter::once(format!("global <code>{}</code>", escape(name))).chain(values).collect()));
    }
    let times: Vec<String> =
        report.runs.iter().map(|(_, r)| outcome(r).map_or(String::new(), |o| format!("{:.3} ms", o.micros as f64 / 1000.0))).collect();
    rows.push(("muted".to_string(), std::iter::once("time".to_string()).chain(times).collect()));
    let head: Vec<&str> = std::iter::once("").chain(modes).collect();
    table("outcomes", &head, &rows)
}

/// The value of the global `name` after `run`, if it ran and left one.
fn global<'a>(run: &'a ModeRun, name: &str) -> Option<&'a crate::executor::Value> {
    outcome(run)?.globals.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

fn outcome(run: &ModeRun) -> Option<&Outcome> {
    match run {
        ModeRun::Ran { outcome } => Some(outcome),
        _ => None,
    }
}

/// A run's stdout, its line `divergent_line` (1-based; past the end: the
/// end of output) marked.
fn stdout_html(o: &Outcome, divergent_line: Option<usize>) -> String {
    let lines: Vec<&str> = o.stdout.lines().collect();
    let mut s = String::from("<pre>");
    for (i, l) in lines.iter().enumerate() {
        if divergent_line == Some(i + 1) {
            let _ = write!(s, "<span class=\"stdout-line divergent\">{MARKER}{}</span>", escape(l));
        } else {
            let _ = write!(s, "<span class=\"stdout-line\">{}</span>", escape(l));
        }
    }
    if divergent_line.is_some_and(|l| l > lines.len()) {
        let _ = write!(s, "<span class=\"stdout-line divergent\">{MARKER}&lt;end of output&gt;</span>");
    } else if lines.is_empty() {
        s.push_str("<span class=\"muted\">(empty)</span>");
    }
    if o.stdout_truncated {
        s.push_str("<span class=\"muted\">… (truncated)</span>");
    }
    s.push_str("</pre>");
    s
}

/// The original and converted source side by side: each converted line next
/// to the original line the source map gives it (its first converted line
/// on the same row, or the next original line when its text is the same;
/// later ones, and generated lines, on rows of their own, with the original
/// line they come from in a gutter). `Err`: the HTML saying why there is
/// no converted source (not converted; converted by a target).
fn source_section(
    original: &str,
    conversion: Result<&Conversion, String>,
    hot: &BTreeSet<u32>,
    hot_converted: &BTreeSet<u32>,
    refused: Option<u32>,
) -> String {
    let mut b = String::from("<h2 id=\"source\">Original and converted</h2>\n");
    let orig: Vec<&str> = original.lines().collect();
    let (conv, map): (Vec<&str>, &[u32]) = match &conversion {
        Ok(c) => (c.source.lines().collect(), &c.map.lines[..]),
        Err(note) => {
            let _ = writeln!(b, "{note}");
            (Vec::new(), &[][..])
        }
    };
    let mut rows: Vec<(Option<usize>, Option<(usize, u32)>)> = Vec::new();
    let mut next = 1;
    for (i, line) in conv.iter().enumerate() {
        // A blank line stands for no statement: it takes no original line.
        let from = if line.trim().is_empty() { 0 } else { map.get(i).copied().unwrap_or(0) };
        if from as usize >= next {
            while next < from as usize {
                rows.push((Some(next), None));
                next += 1;
            }
            rows.push((Some(next), Some((i + 1, from))));
            next += 1;
        } else if orig.get(next - 1).is_some_and(|o| o.trim() == line.trim()) {
            // The same text as the next original line (a decorated def, whose
            // statement starts at its decorator; a blank line): side by side.
            rows.push((Some(next), Some((i + 1, from))));
            next += 1;
        } else {
            rows.push((None, Some((i + 1, from))));
        }
    }
    while next <= orig.len() {
        rows.push((Some(next), None));
        next += 1;
    }
    b.push_str("<table class=\"source\">\n<tbody>\n<tr class=\"head\"><td class=\"ln\"></td><td>original</td><td class=\"from\">from</td><td class=\"ln\"></td><td>converted</td></tr>\n");
    for (o, c) in rows {
        let o_hot = o.is_some_and(|l| hot.contains(&(l as u32)));
        let o_class = match o {
            Some(_) if o_hot => " class=\"src divergent\"",
            Some(l) if refused == Some(l as u32) => " class=\"src refused-line\"",
            _ => " class=\"src\"",
        };
        let (o_ln, o_text) = o.map_or((String::new(), String::new()), |l| (mark(l, o_hot), escape(orig.get(l - 1).copied().unwrap_or(""))));
        let (c_ln, c_from, c_text, c_class, row_class) = match c {
            Some((l, from)) => {
                let c_hot = hot_converted.contains(&(l as u32)) || (from > 0 && hot.contains(&from));
                let class = if c_hot { " class=\"src conv divergent\"" } else { " class=\"src conv\"" };
                let from_text = if from == 0 { String::new() } else { format!("← {from}") };
                (mark(l, c_hot), from_text, escape(conv[l - 1]), class, if from == 0 { " class=\"gen\"" } else { "" })
            }
            None => (String::new(), String::new(), String::new(), " class=\"src conv\"", ""),
        };
        let _ = writeln!(b, "<tr{row_class}><td class=\"ln\">{o_ln}</td><td{o_class}>{o_text}</td><td class=\"from\">{c_from}</td><td class=\"ln\">{c_ln}</td><td{c_class}>{c_text}</td></tr>");
    }
    b.push_str("</tbody>\n</table>\n");
    b
}

/// A line number, with the marker when the line is divergent.
fn mark(line: usize, hot: bool) -> String {
    if hot {
        format!("{MARKER}{line}")
    } else {
        line.to_string()
    }
}
