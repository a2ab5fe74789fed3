//! The fuzz loop: generate programs, check each in every mode, classify the
//! verdicts, keep the findings. The engine-free core of `stagecheck fuzz`
//! (and of the cargo-fuzz targets): like wasmtime's `crates/fuzzing`, it
//! knows generators and oracles, not libFuzzer.
//!
//! - [`case`]: bytes (from a seed, or given) → Config → program, deterministically;
//! - [`outcome`]: a checked case as agree / refused / finding / poisoned;
//! - [`signature`]: what makes two findings the same one (deduplication);
//! - [`findings`]: findings on disk, written atomically, each replayable with one command;
//! - [`stats`] and [`report`]: the counts and their time series, `summary.json` /
//!   `summary.md` / `index.html`, and reports of several runs merged into one;
//! - [`run_dir`]: what a report takes from a run directory it reads (ids, paths).
//!
//! [`run`] drives `--jobs` threads, each with its own worker process. A new
//! finding is announced (`new finding ID: DIR` on stdout, by the CLI's
//! progress callback) after its directory is renamed into place and before
//! it is reduced into `reduced.py`; a run on an existing directory first
//! reduces the findings left without `reduced.py` (a run killed
//! mid-reduction). `tests/kill.rs` kills a run with SIGKILL after its first
//! announcement and checks both. Planted bugs (feature `planted-bugs`,
//! `STAGECHECK_PLANT`: `staging/src/planted.rs`, `executor/src/planted.rs`, `transformer/src/planted.rs`,
//! `gpu/src/planted.rs`) prove the loop finds what it should
//! (`tests/planted.rs`).

pub mod case;
pub mod findings;
pub mod kinds;
pub mod outcome;
pub mod report;
pub mod run_dir;
pub mod signature;
pub mod stats;

use crate::executor::Config as ExecConfig;
use crate::modes::Mode;
// The two oracles that run beside the modes, by their glue in this loop.
use crate::oracles::cpython::fuzz as cpython;
use crate::oracles::gradcheck::fuzz as gradcheck;
use crate::worker::Worker;
use stagecheck_generator::Family;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Which generator families a run draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Families {
    Plain,
    Tensor,
    Both,
}

impl Families {
    /// The family of program `index` (both: alternating).
    pub fn of(self, index: u64) -> Family {
        match self {
            Families::Plain => Family::Plain,
            Families::Tensor => Family::Tensor,
            Families::Both if index.is_multiple_of(2) => Family::Plain,
            Families::Both => Family::Tensor,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    pub time: Duration,
    pub seed: u64,
    pub jobs: usize,
    pub families: Families,
    /// The run's report directory (findings go under `findings/`).
    pub out: PathBuf,
    /// Per-run limits of the executor (each mode of each program).
    pub exec: ExecConfig,
    /// Stop after this many programs (tests, reproducible runs), if set.
    pub max_programs: Option<u64>,
    /// Stop at the first new finding.
    pub stop_at_first: bool,
    /// Time to reduce each new finding into `reduced.py` (zero: none).
    pub reduce_time: Duration,
    /// The CPython oracle's interpreter (`--oracle cpython`), if on.
    pub cpython: Option<crate::oracles::cpython::Python>,
    /// The modes each program runs in: [`MODES`], and `staged-gpu` with `--gpu`
    /// (under a target: the target's modes).
    pub modes: Vec<Mode>,
    /// The compiler under test (`--target`): every program runs on its
    /// workers instead of stagecheck's own (`crate::targets`).
    pub target: Option<crate::targets::Target>,
}

/// The modes every generated program runs in.
pub const MODES: &[Mode] = &[Mode::Original, Mode::Unstaged, Mode::Staged];

/// Runs the fuzz loop until the time is up (or `max_programs`); `progress`
/// is called after every program with the running statistics.
pub fn run(options: &Options, progress: &(dyn Fn(&stats::Stats) + Sync)) -> std::io::Result<stats::Stats> {
    std::fs::create_dir_all(options.out.join("findings"))?;
    let mut initial = stats::Stats::new();
    initial.cpython = options.cpython.as_ref().map(|p| cpython::Stats { version: p.version.clone(), ..Default::default() });
    initial.target = options.target.as_ref().map(|t| t.name.clone());
    let stats = Mutex::new(initial);
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let mut store = findings::Store::open(&options.out.join("findings"))?;
    store.target = options.target.as_ref().map(|t| t.name.clone());
    // Carry on after a run killed mid-reduction: reduce what it left unreduced.
    for (dir, kind, mode) in store.unreduced() {
        if mode == "gradcheck" {
            reduce_gradient(&dir, options);
        } else if mode == "cpython" {
            reduce_cpython(&dir, options);
        } else {
            reduce_saved(&dir, &signature::Signature::named(kind, mode), options);
        }
    }
    let store = Mutex::new(store);
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| {
                let mut worker = Worker::spawn(options.target.as_ref(), options.exec.clone());
                if let Some(ready) = worker.target_ready() {
                    stats.lock().expect("stats").target_version.get_or_insert_with(|| ready.version.clone());
                }
                loop {
                    if stop.load(Ordering::Relaxed) || started.elapsed() >= options.time {
                        break;
                    }
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if options.max_programs.is_some_and(|m| index >= m) {
                        break;
                    }
                    let settings = options.target.as_ref().map_or(stagecheck_generator::Settings::DEFAULT, |t| t.generator);
                    let case = case::Case::from_seed_for(options.seed, index, options.families.of(index), &settings);
                    let checked = outcome::check_case_in(&mut worker, &case, &options.modes);
                    let mut saved = None;
                    if let outcome::Kind::Finding { signature, .. } = &checked.kind {
                        let mut store = store.lock().expect("findings store");
                        match store.save(&case, &checked, signature) {
                            Ok(s) => saved = s,
                            Err(e) => {
                                eprintln!("stagecheck fuzz: cannot save a finding: {e}");
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    // The CPython oracle (RustPython bugs): saved like the modes' findings.
                    let against_cpython = options.cpython.as_ref().filter(|_| !matches!(checked.kind, outcome::Kind::Invalid { .. }));
                    let against_cpython = against_cpython.map(|python| cpython::check_case(&mut worker, python, &case));
                    let mut saved_cpython = None;
                    if let Some(cpython::Checked::Finding { signature, verdict }) = &against_cpython {
                        match store.lock().expect("findings store").save_verdict(&case, verdict, signature) {
                            Ok(s) => saved_cpython = s,
                            Err(e) => {
                                eprintln!("stagecheck fuzz: cannot save a finding: {e}");
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    // The gradient oracle: gradients against finite differences.
                    let mut saved_grad = None;
                    if options.target.is_none() && !matches!(checked.kind, outcome::Kind::Invalid { .. }) {
                        if let Some((signature, report)) = gradcheck::check_case(&mut worker, &case) {
                            match store.lock().expect("findings store").save_verdict(&case, &report, &signature) {
                                Ok(Some(path)) => saved_grad = Some((signature, path)),
                                Ok(None) => {}
                                Err(e) => {
                                    eprintln!("stagecheck fuzz: cannot save a finding: {e}");
                                    stop.store(true, Ordering::Relaxed);
                                }
                            }
                        }
                    }
                    if (saved.is_some() || saved_cpython.is_some() || saved_grad.is_some()) && options.stop_at_first {
                        stop.store(true, Ordering::Relaxed);
                    }
                    let to_reduce = saved.clone();
                    let gradient_to_reduce = saved_grad.as_ref().map(|(_, dir)| dir.clone());
                    let cpython_to_reduce = saved_cpython.clone();
                    let mut s = stats.lock().expect("stats");
                    match &checked.kind {
                        // The first program of each refusal reason, for review.
                        outcome::Kind::Refused { reason } if !s.refusals.contains_key(reason) => {
                            keep_example(&options.out, "refused", s.refusals.len(), reason, &case)
                        }
                        // Findings that did not reproduce: the first few, with both signatures.
                        outcome::Kind::Poisoned { first, again } if s.poisoned_cases.len() < stats::POISONED_KEPT => {
                            let why = format!("first {first}, then {again}");
                            keep_example(&options.out, "poisoned", s.poisoned_cases.len(), &why, &case)
                        }
                        // Programs RustPython cannot compile as written: the first few.
                        outcome::Kind::Invalid { message } if s.invalid < 20 => {
                            keep_example(&options.out, "invalid", s.invalid as usize, message, &case)
                        }
                        _ => {}
                    }
                    s.record(&case, &checked, saved, started.elapsed());
                    if let Some((signature, path)) = saved_grad {
                        let at_seconds = started.elapsed().as_secs_f64();
                        s.findings.push(stats::Finding {
                            id: signature.id(),
                            mode: signature.mode,
                            path,
                            seed: case.seed,
                            index: case.index,
                            at_seconds,
                            target: None,
                        });
                    }
                    if let Some(c) = &against_cpython {
                        s.record_cpython(&case, c, saved_cpython, started.elapsed());
                    }
                    progress(&s);
                    drop(s);
                    // After the finding is announced (whole on disk), reduce it.
                    if let (Some(dir), outcome::Kind::Finding { signature, .. }) = (&to_reduce, &checked.kind) {
                        reduce_saved(dir, signature, options);
                    }
                    if let Some(dir) = &gradient_to_reduce {
                        reduce_gradient(dir, options);
                    }
                    if let Some(dir) = &cpython_to_reduce {
                        reduce_cpython(dir, options);
                    }
                }
            });
        }
    });
    let mut stats = stats.into_inner().expect("stats");
    stats.finish(started.elapsed());
    Ok(stats)
}

/// Reduces a saved finding into `reduced.py` next to its `program.py`
/// (written atomically, after the finding's directory is whole); best
/// effort: a reduction that fails is reported, and the finding stays.
fn reduce_saved(dir: &std::path::Path, signature: &signature::Signature, options: &Options) {
    use crate::reduce::finding::{reduce_file, Options as ReduceOptions, Target};
    if options.reduce_time.is_zero() {
        return;
    }
    let reduce = ReduceOptions {
        modes: options.modes.clone(),
        under_test: options.target.clone(),
        exec: options.exec.clone(),
        deadline: Instant::now() + options.reduce_time,
        target: signature.mode.parse().ok().map(|mode| Target { kind: signature.kind.clone(), mode }),
    };
    if let Err(e) = reduce_file(&dir.join("program.py"), &dir.join("reduced.py"), &reduce, &mut |_| {}) {
        eprintln!("stagecheck fuzz: {}: not reduced: {e}", dir.display());
    }
}

/// Reduces a saved gradient finding (`gradcheck::reduce_saved`), unless
/// reduction is off.
fn reduce_gradient(dir: &std::path::Path, options: &Options) {
    if !options.reduce_time.is_zero() {
        gradcheck::reduce_saved(dir, &options.exec, options.reduce_time);
    }
}

/// Reduces a saved CPython oracle finding (`cpython::reduce_saved`), unless
/// reduction is off or the run compares with no CPython, with
/// [`cpython::REDUCE_FACTOR`] times the reduction budget.
fn reduce_cpython(dir: &std::path::Path, options: &Options) {
    if let (Some(python), false) = (&options.cpython, options.reduce_time.is_zero()) {
        cpython::reduce_saved(dir, python, &options.exec, options.reduce_time * cpython::REDUCE_FACTOR);
    }
}

/// Keeps a program for review as `<out>/<dir>/<n>.py` (`refused` programs
/// go to `refusals/`), headed by why; best effort: a write that fails loses
/// an example, never the run.
fn keep_example(out: &std::path::Path, kind: &str, n: usize, why: &str, case: &case::Case) {
    let dir = out.join(if kind == "refused" { "refusals" } else { kind });
    let text = format!("# {kind}: {why}\n# seed {} index {}\n\n{}", case.seed, case.index, case.program.source);
    let _ = std::fs::create_dir_all(&dir).and_then(|_| report::atomic_write(&dir.join(format!("{n:03}.py")), text.as_bytes()));
}

/// `90`, `90s`, `10m`, `1h`, `1.5m`.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let n: f64 = number.trim().parse().ok()?;
    let seconds = match unit {
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return None,
    };
    (seconds.is_finite() && seconds > 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// The current UTC time as `2026-11-21T08-30-00Z` (a directory name).
pub fn timestamp() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}-{:02}-{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}
