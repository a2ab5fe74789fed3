//! The HTML pages as a browser shows them: the corpus
//! review and a fuzz report's index.html are loaded in headless Chromium
//! (Debian's `chromium`, installed by scripts/deps) and the DOM it gives back
//! (`--dump-dom`, after parsing and layout) must show the plots with their
//! data and the divergence marked. Without Chromium the tests fail: run
//! scripts/deps.
//!
//! The divergence is a real one: corpus entry conv-logical-013 (an accepted
//! deviation: a short-circuited operand of a nested and/or is truth-tested
//! twice, so the converted program prints one more line). Reports come from
//! real fuzz runs, merged as `stagecheck report` merges shards. With the
//! feature `planted-bugs` (scripts/planted-bugs), a report with a real
//! finding must show that finding's difference marked, and link its program
//! and its reduction.

use stagecheck::executor::Config;
use stagecheck::fuzz::report::{self, Summary};
use stagecheck::fuzz::{self, Families, Options};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stagecheck-html-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Chromium, installed by scripts/deps when missing; a test without it fails.
fn chromium() -> PathBuf {
    let find = || {
        ["chromium", "chromium-browser"].iter().find_map(|name| {
            let out = Command::new("sh").args(["-c", &format!("command -v {name}")]).output().ok()?;
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
        })
    };
    if let Some(p) = find() {
        return p;
    }
    let deps = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/deps");
    let _ = Command::new(&deps).status();
    find().unwrap_or_else(|| {
        panic!("chromium is not installed and {} could not install it: the HTML pages cannot be checked", deps.display())
    })
}

/// The DOM headless Chromium builds from `page` (a file), serialised.
fn dump_dom(page: &Path) -> String {
    // A fresh profile per load: tests load pages at the same time.
    static LOADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let profile = temp_dir(&format!("chromium-profile-{}", LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let url = format!("file://{}", page.canonicalize().expect("page exists").display());
    let mut child = Command::new(chromium())
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--dump-dom", &url])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).map(|_| s)
    });
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish loading {url} in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let dom = reader.join().expect("reader").expect("chromium's output is UTF-8");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(dom.contains("</html>"), "chromium gave no DOM for {url}: {dom:.500}");
    dom
}

/// The text of every element whose class list includes `class`, tags removed.
fn texts_of_class(dom: &str, class: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = dom;
    while let Some(i) = rest.find("class=\"") {
        let after = &rest[i + 7..];
        let end = after.find('"').unwrap_or(0);
        let classes = &after[..end];
        rest = &after[end..];
        if !classes.split(' ').any(|c| c == class) {
            continue;
        }
        // The element's content: up to its own closing tag.
        let tag_start = dom.len() - rest.len();
        let open = dom[..tag_start].rfind('<').expect("an element");
        let tag: String = dom[open + 1..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let body_start = tag_start + rest.find('>').expect("tag ends") + 1;
        out.push(strip_tags(&dom[body_start..closing(dom, body_start, &tag)]));
    }
    out
}

/// Where the element of `tag` whose content starts at `from` ends (elements
/// of the same tag may nest in it).
fn closing(dom: &str, from: usize, tag: &str) -> usize {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut depth = 0;
    let mut i = from;
    while i < dom.len() {
        let rest = &dom[i..];
        if rest.starts_with(&close) {
            if depth == 0 {
                return i;
            }
            depth -= 1;
        } else if rest.starts_with(&open) && rest[open.len()..].starts_with([' ', '>']) {
            depth += 1;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    dom.len()
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// The `points` attributes of every polyline.
fn polylines(dom: &str) -> Vec<usize> {
    dom.split("<polyline")
        .skip(1)
        .map(|p| {
            let points = p.split("points=\"").nth(1).and_then(|s| s.split('"').next()).unwrap_or("");
            points.split_whitespace().count()
        })
        .collect()
}

#[test]
fn the_corpus_review_shows_a_real_divergence_marked_and_nothing_marked_where_modes_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let corpus = temp_dir("corpus");
    for (from, to) in [
        ("conversion/logical/013_nested_boolop_value_retest.py", "a_diverged.py"),
        ("conversion/if/001_basic_else.py", "b_agree.py"),
        ("staged/cache/001_retrace_on_shape.py", "c_staged.py"),
    ] {
        std::fs::copy(root.join(from), corpus.join(to)).expect("corpus entry");
    }
    // Markup in a header, the source and the output is shown as text.
    let markup = "# id: html-escape\n# construct: strings\n# modes: original,unstaged\n# expect: agree\n# about: <script>alert(1)</script>\n\ndef f():\n    return '<script>alert(2)</script> & \"<i>'\n\n\nprint(f())\n";
    std::fs::write(corpus.join("d_markup.py"), markup).expect("entry");
    let out = corpus.join("review");
    let reviewed = stagecheck::html::review::review(&corpus, &out).expect("review written");
    assert_eq!(reviewed.len(), 4);
    assert!(reviewed.iter().all(|r| r.pass.is_ok()), "every entry gives its expected verdict");
    let escaped = dump_dom(&out.join("html-escape.html"));
    assert!(!escaped.contains("<script") && !escaped.contains("<i>"), "no markup from the entry became an element: {escaped}");
    let text = strip_tags(&escaped);
    assert!(text.contains("<script>alert(1)</script>") && text.contains("<script>alert(2)</script> & \"<i>"), "{text}");

    let index = dump_dom(&out.join("index.html"));
    assert_eq!(texts_of_class(&index, "pass").len(), 4, "every entry passes: {index}");
    assert!(texts_of_class(&index, "fail").is_empty(), "{index}");
    assert_eq!(texts_of_class(&index, "diverged"), ["diverged", "diverged"], "expected and actual verdict of conv-logical-013");
    for id in ["conv-logical-013", "conv-if-001", "staged-cache-001"] {
        assert!(index.contains(&format!("<a href=\"{id}.html\">{id}</a>")), "{id} linked from the index: {index}");
    }

    // conv-logical-013: the original prints `bool f`, `t`; the converted
    // program tests f again and prints `bool f` where `t` should be.
    let page = dump_dom(&out.join("conv-logical-013.html"));
    let marked = texts_of_class(&page, "divergent");
    assert!(marked.iter().any(|t| t == "≠bool f"), "the second stdout line of the unstaged run is marked: {marked:?}");
    assert!(
        marked.iter().any(|t| t.contains("unstaged: \"bool f\"")),
        "the verdict names the differing mode and text (quoted, as check prints it): {marked:?}"
    );
    let lines = texts_of_class(&page, "stdout-line");
    assert_eq!(lines, ["bool f", "t", "bool f", "≠bool f", "t"], "original's stdout, then the unstaged run's");
    assert_eq!(texts_of_class(&page, "marker").len(), marked.len(), "every divergent element has its visible marker");
    // Source side by side: the converted `w = ...` line next to original line 19.
    assert!(page.contains("ag__.or_(ag__.and_(f, lambda: t), lambda: t)"), "converted source shown");
    assert!(page.contains("← 19"), "the source map's original line shown next to the converted one");

    let agree = dump_dom(&out.join("conv-if-001.html"));
    assert!(texts_of_class(&agree, "divergent").is_empty(), "nothing is marked where the modes agree");
    assert!(agree.contains("Every mode agrees with the original."));

    let staged = dump_dom(&out.join("staged-cache-001.html"));
    let graph = texts_of_class(&staged, "graph");
    assert!(graph.len() == 1 && graph[0].contains("(def total") && graph[0].contains("reduce_sum"), "the staged run's graph: {graph:?}");
    assert!(staged.contains("<th>staged</th>"), "an outcome column per mode");
}

fn fuzz_run(out: &Path, seed: u64, programs: u64) -> Summary {
    let options = Options {
        time: Duration::from_secs(120),
        seed,
        jobs: 1,
        families: Families::Both,
        out: out.to_path_buf(),
        exec: Config { keep_graph: false, ..Config::default() },
        max_programs: Some(programs),
        stop_at_first: false,
        reduce_time: Duration::ZERO,
        cpython: None,
        modes: fuzz::MODES.to_vec(),
        target: None,
    };
    let stats = fuzz::run(&options, &|_| {}).expect("fuzz run");
    let summary = Summary::of_run(&options, &stats);
    report::write(out, &summary).expect("report written");
    summary
}

#[test]
fn fuzz_reports_plot_their_runs_and_merge_into_one() {
    let dir = temp_dir("reports");
    let (a, b, merged) = (dir.join("a"), dir.join("b"), dir.join("merged"));
    let sa = fuzz_run(&a, 11, 90);
    let sb = fuzz_run(&b, 12, 90);
    assert_eq!((sa.programs, sb.programs), (90, 90));
    for s in [&sa, &sb] {
        let t = &s.runs[0].timeline;
        assert!(t.len() >= 2 && t[0].programs == 0 && t.last().unwrap().programs == 90, "samples from 0 to the end: {t:?}");
    }

    // Rebuilding from summary.json gives the same pages (digits aside: JSON
    // gives floats back to within a rounding step, which may move a
    // coordinate's last digit).
    let page = std::fs::read_to_string(a.join("index.html")).expect("index.html");
    std::fs::remove_file(a.join("index.html")).expect("rm");
    report::rebuild(&a).expect("rebuilt");
    let no_digits = |s: &str| s.replace(|c: char| c.is_ascii_digit(), "");
    assert_eq!(no_digits(&std::fs::read_to_string(a.join("index.html")).expect("index.html again")), no_digits(&page));

    let m = report::merge(&[a.clone(), b.clone()], &merged).expect("merged");
    assert_eq!(m.programs, 180);
    assert_eq!(m.stats.agree, sa.stats.agree + sb.stats.agree);
    assert_eq!(m.stats.refused, sa.stats.refused + sb.stats.refused);
    let sum = |map: fn(&Summary) -> &std::collections::BTreeMap<String, u64>| {
        let mut keys: Vec<&String> = map(&sa).keys().chain(map(&sb).keys()).collect();
        keys.sort();
        keys.dedup();
        assert!(!keys.is_empty());
        for k in keys {
            let part = |s: &Summary| map(s).get(k).copied().unwrap_or(0);
            assert_eq!(map(&m).get(k).copied().unwrap_or(0), part(&sa) + part(&sb), "{k} adds up");
        }
    };
    sum(|s| &s.stats.coverage);
    sum(|s| &s.stats.per_family);
    if sa.stats.refused + sb.stats.refused > 0 {
        sum(|s| &s.stats.refusals);
    }
    let mut ids: Vec<&str> = m.stats.findings.iter().map(|f| f.id.as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), m.stats.findings.len(), "findings once per signature");
    assert_eq!(m.runs.len(), 2);
    // Each shard keeps its own time series (read back from JSON: floats to
    // within a rounding step).
    for (merged, shard) in [(&m.runs[0], &sa.runs[0]), (&m.runs[1], &sb.runs[0])] {
        assert_eq!(merged.timeline.len(), shard.timeline.len());
        for (x, y) in merged.timeline.iter().zip(&shard.timeline) {
            assert!(x.programs == y.programs && (x.seconds - y.seconds).abs() < 1e-9, "{x:?} {y:?}");
        }
    }
    assert_eq!(m.runs[1].parameters.seed, 12);
    // The merged summary.json reads back as written.
    let again = Summary::read(&merged).expect("merged summary.json");
    assert_eq!((again.programs, again.runs.len()), (180, 2));

    let one = dump_dom(&a.join("index.html"));
    let lines = polylines(&one);
    assert_eq!(lines.len(), 4, "checks/s, findings, programs and refusals over time: {lines:?}");
    assert!(lines.iter().all(|&n| n >= 1), "every series has its samples: {lines:?}");
    let constructs = sa.stats.coverage.len();
    assert!(one.matches("<rect class=\"bar").count() >= constructs, "a coverage bar per construct used ({constructs})");
    assert!(one.contains("class=\"rule\""), "the 1% line of the coverage plot");
    assert!(one.contains("<figure id=\"refusals-plot\">"));

    let dom = dump_dom(&merged.join("index.html"));
    let lines = polylines(&dom);
    assert_eq!(lines.len(), 8, "four plots, a series per shard: {lines:?}");
    assert!(lines.iter().all(|&n| n >= 1), "{lines:?}");
    assert!(dom.contains("stagecheck fuzz runs: 2 merged"));
    assert!(dom.contains("180</div><div class=\"l\">programs"), "merged total shown");
    let runs = texts_of_class(&dom, "runs");
    assert!(
        runs.len() == 1 && runs[0].contains(&a.display().to_string()) && runs[0].contains(&b.display().to_string()),
        "both shards in the parameters table: {runs:?}"
    );
    assert!(runs[0].contains("original, unstaged, staged"), "each run's modes: {runs:?}");
}

#[test]
fn report_and_review_commands() {
    let dir = temp_dir("cli");
    let sc = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_stagecheck")).args(args).current_dir(&dir).output().expect("stagecheck runs");
    let empty = sc(&["report", "nowhere"]);
    assert_eq!(empty.status.code(), Some(2), "a directory without summary.json is bad input");
    assert!(String::from_utf8_lossy(&empty.stderr).contains("summary.json"));
    let two = sc(&["report", "a", "b"]);
    assert_eq!(two.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&two.stderr).contains("--out"), "merging needs --out");

    std::fs::create_dir_all(dir.join("corpus")).expect("dir");
    let entry = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/conversion/if/001_basic_else.py");
    std::fs::copy(entry, dir.join("corpus/x.py")).expect("copy");
    let review = sc(&["corpus", "review", "corpus"]);
    assert_eq!(review.status.code(), Some(0), "{}", String::from_utf8_lossy(&review.stderr));
    assert!(dir.join("reports/corpus-review/index.html").is_file(), "the default output directory");
    assert!(dir.join("reports/corpus-review/conv-if-001.html").is_file());
}

/// A report with a real finding (a planted bug) shows its difference marked.
#[cfg(feature = "planted-bugs")]
#[test]
fn a_reports_finding_is_shown_with_its_difference_marked() {
    let out = temp_dir("planted");
    let run = Command::new(env!("CARGO_BIN_EXE_stagecheck"))
        .args(["fuzz", "--time", "60s", "--family", "plain", "--seed", "7", "--stop-at-first", "--out"])
        .arg(&out)
        .env("STAGECHECK_PLANT", "and_evaluates_all")
        .output()
        .expect("stagecheck runs");
    assert_eq!(run.status.code(), Some(1), "a finding: {}", String::from_utf8_lossy(&run.stdout));
    let summary = Summary::read(&out).expect("summary.json");
    let finding = &summary.stats.findings[0];
    let dom = dump_dom(&out.join("index.html"));
    let marked = texts_of_class(&dom, "divergent");
    assert!(!marked.is_empty(), "the finding's first difference is marked: {dom}");
    assert!(dom.contains(&format!("findings/{}/program.py", finding.id)), "its program is linked");
    assert!(dom.contains(&format!("findings/{}/reduced.py", finding.id)), "and its reduction (fuzz reduces new findings)");
    assert!(strip_tags(&dom).contains(&format!("stagecheck check {}", finding.path.join("program.py").display())), "its replay command");
}
