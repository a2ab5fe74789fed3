//! A fuzz report's `index.html`: headline counts, the findings (signature,
//! first difference, files, replay command), plots of checks/s and findings
//! over time, construct coverage (with the 1% line) and refusals by reason,
//! and the runs' parameters. Files are linked only where they exist below
//! the report's directory.

use super::svg::{bar_chart, line_chart, Bar, Series};
use super::{escape, link, page, table, MARKER};
use crate::fuzz::report::{by_count, family_share, replay_command, Summary};
use crate::fuzz::signature::Signature;
use crate::fuzz::stats::Finding;
use crate::modes::Mode;
use crate::oracles::convergence::{Difference, Verdict};
use std::fmt::Write as _;
use std::path::Path;

/// The page for `summary`, to be written into `dir`.
pub fn render(summary: &Summary, dir: &Path) -> String {
    let s = &summary.stats;
    let runs = summary.runs.len();
    let title = if runs == 1 { "stagecheck fuzz run".to_string() } else { format!("stagecheck fuzz runs: {runs} merged") };
    let mut b = format!("<h1>{}</h1>\n<p class=\"sub\">{}</p>\n", escape(&title), escape(&subtitle(summary)));

    let pct = |n: u64| 100.0 * n as f64 / s.programs.max(1) as f64;
    let card = |class: &str, n: String, l: &str| {
        format!("<div class=\"card {class}\"><div class=\"n\">{}</div><div class=\"l\">{}</div></div>", escape(&n), escape(l))
    };
    let findings_class = if s.findings.is_empty() { "good" } else { "bad" };
    b.push_str("<div class=\"cards\">");
    for c in [
        card("", s.programs.to_string(), "programs"),
        card("", format!("{:.1}", summary.checks_per_second), "three-way checks/s"),
        card("", format!("{:.1} s", summary.seconds), "wall time"),
        card("", format!("{} ({:.1}%)", s.agree, pct(s.agree)), "agree"),
        card("", format!("{} ({:.1}%)", s.refused, pct(s.refused)), "refused as intended"),
        card(if s.unexpected_refusals == 0 { "good" } else { "bad" }, s.unexpected_refusals.to_string(), "unexpected refusals (findings)"),
        card(findings_class, format!("{} new", s.findings.len()), &format!("findings ({} occurrences)", s.finding_hits)),
        card("", s.poisoned.to_string(), "poisoned (did not reproduce)"),
        card("", s.slow.to_string(), "slow (agree with a longer limit)"),
        card("", s.invalid.to_string(), "invalid (RustPython cannot compile)"),
    ] {
        b.push_str(&c);
    }
    b.push_str("</div>\n");

    b.push_str("<h2 id=\"findings\">Findings</h2>\n");
    b.push_str(&findings_table(&s.findings, dir));
    if let Some(c) = &s.cpython {
        let _ = write!(
            b,
            "<h2 id=\"cpython\">CPython oracle ({})</h2>\n<p>{} agree, {} normalised, {} known, {} skipped, {} poisoned; {} findings ({} occurrences): differences between RustPython and CPython running the original.</p>\n",
            escape(&c.version),
            c.agree,
            c.normalised.values().sum::<u64>(),
            c.known.values().sum::<u64>(),
            c.skipped.values().sum::<u64>(),
            c.poisoned,
            c.findings.len(),
            c.finding_hits
        );
        b.push_str(&findings_table(&c.findings, dir));
    }

    b.push_str("<h2 id=\"plots\">Over time</h2>\n<div class=\"plots\">\n");
    // The first sample (at 0 s) has no rate: the rate plot starts at the second.
    let per_run = |value: fn(&crate::fuzz::stats::Sample) -> f64, skip: usize| -> Vec<Series> {
        let points = |r: &crate::fuzz::report::Run| r.timeline.iter().skip(skip).map(|p| (p.seconds, value(p))).collect();
        summary.runs.iter().map(|r| Series { name: run_name(r, runs), points: points(r) }).collect()
    };
    let _ = writeln!(
        b,
        "<figure id=\"checks-per-second\">{}</figure>",
        line_chart("Checks per second", "seconds", "checks/s", &per_run(|p| p.checks_per_second, 1))
    );
    let _ = writeln!(
        b,
        "<figure id=\"findings-over-time\">{}</figure>",
        line_chart("New findings", "seconds", "findings", &per_run(|p| p.findings as f64, 0))
    );
    let _ = writeln!(
        b,
        "<figure id=\"programs-over-time\">{}</figure>",
        line_chart("Programs checked", "seconds", "programs", &per_run(|p| p.programs as f64, 0))
    );
    let _ = writeln!(
        b,
        "<figure id=\"refusals-over-time\">{}</figure>",
        line_chart("Refused programs", "seconds", "refused", &per_run(|p| p.refused as f64, 0))
    );
    b.push_str("</div>\n");

    b.push_str("<h2 id=\"coverage\">Construct coverage</h2>\n");
    b.push_str("<p class=\"sub\">Share of its family's programs using each construct of the generator's table (of the families run); bars under the 1% line are drawn red.</p>\n");
    let coverage: Vec<Bar> = coverage(summary)
        .into_iter()
        .map(|(c, n)| match family_share(s, &c, n) {
            Some((f, share)) => Bar { text: format!("{share:.1}% of {f} ({n})"), label: c, value: share },
            None => Bar { text: format!("{:.1}% ({n})", pct(n)), label: c, value: pct(n) },
        })
        .collect();
    let _ = writeln!(
        b,
        "<figure id=\"coverage-plot\">{}</figure>",
        bar_chart("Programs using each construct (%)", &coverage, 1.0, Some((1.0, "1%")))
    );

    b.push_str("<h2 id=\"refusals\">Refusals by reason</h2>\n");
    let refusals = by_count(&s.refusals);
    let bars: Vec<Bar> = refusals.iter().map(|&(r, n)| Bar { label: r.to_string(), value: n as f64, text: n.to_string() }).collect();
    let _ = writeln!(b, "<figure id=\"refusals-plot\">{}</figure>", bar_chart("Refused programs by reason", &bars, 0.0, None));
    let examples = refusal_examples(dir);
    let rows: Vec<(String, Vec<String>)> = refusals
        .iter()
        .map(|&(r, n)| {
            let example =
                examples.iter().find(|(reason, _)| reason == r).map_or(String::new(), |(_, file)| link(&format!("refusals/{file}"), file));
            (String::new(), vec![escape(r), format!("{n}"), format!("{:.2}%", pct(n)), example])
        })
        .collect();
    b.push_str(&table("refusals", &["reason", "programs", "share", "first example"], &rows));

    b.push_str("<h2 id=\"families\">Families</h2>\n");
    let rows: Vec<(String, Vec<String>)> = s
        .per_family
        .iter()
        .map(|(f, n)| (String::new(), vec![escape(f), n.to_string(), format!("{:.1}%", 100.0 * s.refusal_rate(f))]))
        .collect();
    b.push_str(&table("families", &["family", "programs", "refused"], &rows));

    b.push_str("<h2 id=\"parameters\">Runs and parameters</h2>\n");
    let rows: Vec<(String, Vec<String>)> = summary
        .runs
        .iter()
        .map(|r| {
            let p = &r.parameters;
            let limit = p.max_programs.map_or("—".to_string(), |n| n.to_string());
            let cells = [
                r.dir.clone(),
                p.seed.to_string(),
                format!("{:?}", p.families).to_lowercase(),
                p.jobs.to_string(),
                format!("{} s", p.time_seconds),
                limit,
                format!("{} s", p.time_limit_seconds),
                format!("{} MiB", p.memory_limit_mib),
                if p.stop_at_first { "yes" } else { "no" }.to_string(),
                format!("{} s", p.reduce_seconds),
                p.oracle_cpython.as_ref().map_or("—".to_string(), |v| format!("cpython {v}")),
                p.modes_text(),
                format!("{:.1} s", r.seconds),
                r.programs.to_string(),
                format!("{:.1}", r.checks_per_second),
                r.new_findings.to_string(),
                p.version.clone(),
            ];
            (String::new(), cells.iter().map(|c| escape(c)).collect())
        })
        .collect();
    b.push_str(&table(
        "runs",
        &[
            "run",
            "seed",
            "families",
            "jobs",
            "--time",
            "--programs",
            "--time-limit",
            "memory",
            "--stop-at-first",
            "--reduce-time",
            "--oracle",
            "modes",
            "ran",
            "programs",
            "checks/s",
            "new findings",
            "version",
        ],
        &rows,
    ));

    b.push_str("<h2 id=\"files\">Files</h2>\n<ul>");
    for (file, what) in [
        ("summary.md", "summary (Markdown)"),
        ("summary.json", "everything counted (JSON)"),
        ("refusals", "first program of each refusal reason"),
        ("invalid", "programs RustPython cannot compile"),
        ("findings", "findings, one directory per signature"),
    ] {
        if dir.join(file).exists() {
            let _ = write!(b, "<li>{} — {}</li>", link(file, file), escape(what));
        }
    }
    b.push_str("</ul>\n");
    page(&title, &b)
}

fn subtitle(summary: &Summary) -> String {
    let seeds: Vec<String> = summary.runs.iter().map(|r| r.parameters.seed.to_string()).collect();
    format!(
        "seed{} {}, {} programs in {:.1} s",
        if seeds.len() == 1 { "" } else { "s" },
        seeds.join(", "),
        summary.programs,
        summary.seconds
    )
}

fn run_name(run: &crate::fuzz::report::Run, runs: usize) -> String {
    if runs == 1 {
        format!("seed {}", run.parameters.seed)
    } else {
        format!("{} (seed {})", run.dir, run.parameters.seed)
    }
}

/// Every construct of the families run (the generator's table), with the
/// number of programs that used it (0 for those none did), most used first.
fn coverage(summary: &Summary) -> Vec<(String, u64)> {
    use stagecheck_generator::{construct_names, Family};
    let mut counts = summary.stats.coverage.clone();
    for family in [Family::Plain, Family::Tensor] {
        if summary.stats.per_family.contains_key(family.name()) {
            for c in construct_names(family) {
                counts.entry(c.to_string()).or_default();
            }
        }
    }
    by_count(&counts).into_iter().map(|(c, n)| (c.to_string(), n)).collect()
}

/// `(reason, file)` of the kept refusal examples (`refusals/NNN.py`, whose
/// first line is `# refused: <reason>`).
fn refusal_examples(dir: &Path) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir.join("refusals")) else { return Vec::new() };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(text) = std::fs::read_to_string(e.path()) else { continue };
        if let Some(reason) = text.lines().next().and_then(|l| l.strip_prefix("# refused: ")) {
            out.push((reason.to_string(), name));
        }
    }
    out.sort();
    out
}

fn findings_table(findings: &[Finding], dir: &Path) -> String {
    if findings.is_empty() {
        return "<p class=\"none\">None new.</p>\n".to_string();
    }
    let rows: Vec<(String, Vec<String>)> = findings
        .iter()
        .map(|f| {
            let here = dir.join("findings").join(&f.id);
            let signature: Option<Signature> = read_json(&here.join("signature.json"));
            let verdict_text = std::fs::read_to_string(here.join("verdict.json")).ok();
            let sig = match &signature {
                Some(s) => format!(
                    "<code>{}</code><br><span class=\"muted\">{} in {}; constructs: {}</span>",
                    escape(&f.id),
                    escape(&s.kind),
                    escape(&s.mode),
                    escape(&s.constructs.join(", "))
                ),
                None => format!("<code>{}</code>", escape(&f.id)),
            };
            // The modes' verdict, typed; another oracle's (CPython), as saved.
            let difference = match verdict_text.as_deref().map(|t| (t, serde_json::from_str::<Verdict>(t))) {
                Some((_, Ok(verdict))) => first_difference(&verdict),
                Some((text, Err(_))) => {
                    format!("<div class=\"divergent\">{MARKER}<code>{}</code></div>", escape(&crate::abbreviate::text(text)))
                }
                None => "<span class=\"muted\">(no verdict.json)</span>".to_string(),
            };
            let mut files = Vec::new();
            for file in ["program.py", "reduced.py"] {
                if here.join(file).is_file() {
                    files.push(link(&format!("findings/{}/{file}", f.id), file));
                }
            }
            let found = format!("seed {} index {}<br>at {:.1} s", f.seed, f.index, f.at_seconds);
            (String::new(), vec![sig, found, difference, files.join("<br>"), format!("<code>{}</code>", escape(&replay_command(f)))])
        })
        .collect();
    table("findings", &["signature", "found", "first difference", "files", "replay"], &rows)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// A saved verdict's first difference, highlighted: which mode, and what
/// the original and that mode had.
fn first_difference(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Diverged { mode, differences } => match differences.first() {
            Some(d) => difference_html(*mode, d),
            None => escape(&format!("{mode}: no difference recorded")),
        },
        _ => "<span class=\"muted\">(not a divergence)</span>".to_string(),
    }
}

/// One difference between the original and `mode`: the other side in a
/// `divergent` block with its marker; long values cut around where the
/// sides part ([`Difference::describe`]; the finding's files hold the whole).
pub fn difference_html(mode: Mode, d: &Difference) -> String {
    let (what, original, other) = d.describe();
    let original = original.map_or(String::new(), |o| format!("<br>original: <code>{}</code>", escape(&o)));
    format!("{}{original}<div class=\"divergent\">{MARKER}{mode}: <code>{}</code></div>", escape(&what), escape(&other))
}
