//! The `stagecheck` command line.

use clap::{Parser, Subcommand};
use stagecheck::executor::Config;
use stagecheck::worker::Worker;
use stagecheck::check::check;
use stagecheck::input::{read_program, syntax_error, InputError};
use stagecheck::modes::{Mode, ModeRun};
use stagecheck::oracle::{Difference, Verdict};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "stagecheck", version, about = "Differential fuzzing of Python staging compilers")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one program in the sandboxed VM and print its outcome.
    ///
    /// Exit status: 0 when it completed or raised, 1 when it diverged or
    /// crashed the VM, 2 on bad input (unreadable file, not UTF-8, syntax error).
    Run {
        /// The Python program.
        file: PathBuf,
        /// Print the outcome as JSON.
        #[arg(long)]
        json: bool,
        /// Wall-clock limit of the run, in seconds.
        #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
        time_limit: f64,
        /// Memory the run may allocate, in MiB.
        #[arg(long, default_value_t = 512, value_name = "MIB")]
        memory_limit: usize,
        /// original (as written), unstaged (converted) or staged (converted, sc.functions traced into graphs).
        #[arg(long, default_value = "original")]
        mode: Mode,
        /// Print the graphs the run traced (staged mode), as S-expressions.
        #[arg(long)]
        show_graph: bool,
    },
    /// Print the converted program (AutoGraph-style conversion of every function).
    ///
    /// Exit status: 0 when converted, 1 when refused (ConversionError), 2 on bad input.
    Convert {
        /// The Python program.
        file: PathBuf,
        /// Also print the source map: for each converted line, the original line.
        #[arg(long)]
        map: bool,
    },
    /// The regression corpus (corpus/): `stagecheck corpus replay [DIR]`.
    Corpus {
        #[command(subcommand)]
        action: CorpusAction,
    },
    /// Run a program in several modes and compare them (Snek's convergence property).
    ///
    /// Exit status: 0 when all modes agree (or a mode was refused explicitly),
    /// 1 on a divergence between modes, 2 on bad input or usage.
    Check {
        /// The Python program.
        file: PathBuf,
        /// Comma-separated modes; the original always runs and is the reference.
        #[arg(long, value_delimiter = ',', default_value = "original,unstaged,staged")]
        modes: Vec<Mode>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Wall-clock limit of each run, in seconds.
        #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
        time_limit: f64,
        /// An extra oracle: `cpython` also runs the original under python3 and
        /// compares it with RustPython's run (a difference is a RustPython bug).
        #[arg(long, value_enum)]
        oracle: Option<ExtraOracle>,
    },
    /// Generate programs and check each in every mode; findings and a report
    /// go to reports/<timestamp>/ (or --out).
    ///
    /// Exit status: 0 when the run found nothing new, 1 when it saved new
    /// findings, 2 on bad usage.
    Fuzz(FuzzArgs),
    /// Say which GPU the staged-gpu mode would use (the Vulkan adapter), or why none.
    ///
    /// Exit status: 0 when there is one, 1 when there is none.
    Devices,
    /// Rebuild a fuzz report's summary.md and index.html from its
    /// summary.json, or merge the reports of several runs (shards) into one.
    ///
    /// Exit status: 0 when written, 2 on bad input or usage.
    Report {
        /// Report directories (reports/<timestamp>), each with a summary.json.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the merged report goes (required with several directories;
        /// with one, the report is rebuilt in place unless --out is given).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Shrink a program while its finding (kind and mode of divergence) holds;
    /// writes the reduced program, headed by the command that replays it.
    ///
    /// Exit status: 0 when written, 2 on bad input or when the program shows
    /// no finding (or not the one --signature names).
    Reduce(ReduceArgs),
}

/// Oracles beyond the modes' comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ExtraOracle {
    /// The original under the host's CPython (python3) against RustPython's run.
    Cpython,
}

#[derive(clap::Args)]
struct FuzzArgs {
    /// How long to run: 90, 90s, 10m, 1h.
    #[arg(long, default_value = "60s")]
    time: String,
    /// The run's seed: program i of seed s is always the same program.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads, each with its own interpreter.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Program families: plain (Python), tensor (@sc.function programs) or both.
    #[arg(long, default_value = "both")]
    family: String,
    /// The report directory (default: reports/<UTC timestamp>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Stop after this many programs.
    #[arg(long)]
    programs: Option<u64>,
    /// Stop at the first new finding (planted-bug tests, bisecting).
    #[arg(long)]
    stop_at_first: bool,
    /// Wall-clock limit of each run, in seconds.
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
    time_limit: f64,
    /// Time to reduce each new finding into reduced.py (0: do not reduce).
    #[arg(long, default_value = "10s")]
    reduce_time: String,
    /// An extra oracle: `cpython` also runs each plain program's original under
    /// python3; a difference from RustPython is saved as a `cpython` finding.
    #[arg(long, value_enum)]
    oracle: Option<ExtraOracle>,
    /// Also run each program in the staged-gpu mode (graphs on GPU kernels;
    /// needs a Vulkan adapter: a GPU, or Mesa's lavapipe).
    #[arg(long)]
    gpu: bool,
}

#[derive(Subcommand)]
enum CorpusAction {
    /// Re-check every program against the verdict its header expects.
    ///
    /// Exit status: 0 when all match, 1 when any does not, 2 on bad input.
    Replay {
        /// The corpus directory.
        #[arg(default_value = "corpus")]
        dir: PathBuf,
    },
    /// Write an HTML page per entry (original and converted source side by
    /// side, the graph, each mode's outcome, divergences marked) and an index.
    ///
    /// Exit status: 0 when written (whatever the verdicts), 2 on bad input.
    Review {
        /// The corpus directory.
        #[arg(default_value = "corpus")]
        dir: PathBuf,
        /// Where the pages go.
        #[arg(long, default_value = "reports/corpus-review")]
        out: PathBuf,
    },
    /// Add a (reduced) finding to the corpus as one file with a corpus header;
    /// prints its path. Never overwrites.
    ///
    /// Exit status: 0 when added, 2 on bad input or when the file exists.
    Add(CorpusAddArgs),
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`| head`) would
    // panic; a command-line tool ends quietly instead, as cat and grep do.
    // SAFETY: setting a signal's disposition to its default, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    quiet_vulkan_loader();
    // A worker process (src/worker/): not a command for people, so not in --help.
    if std::env::args_os().nth(1).is_some_and(|a| a == stagecheck::worker::SUBCOMMAND) {
        return stagecheck::worker::serve::serve();
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { file, json, time_limit, memory_limit, mode, show_graph } => {
            run(&file, json, time_limit, memory_limit, mode, show_graph)
        }
        Command::Convert { file, map } => convert(&file, map),
        Command::Corpus { action: CorpusAction::Replay { dir } } => corpus_replay(&dir),
        Command::Corpus { action: CorpusAction::Add(args) } => corpus_add(args),
        Command::Reduce(args) => reduce_cmd(args),
        Command::Check { file, modes, json, time_limit, oracle } => check_cmd(&file, &modes, json, time_limit, oracle),
        Command::Fuzz(args) => fuzz_cmd(args),
        Command::Devices => Ok(devices()),
        Command::Report { dirs, out } => report_cmd(&dirs, out.as_deref()),
        Command::Corpus { action: CorpusAction::Review { dir, out } } => corpus_review(&dir, &out),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("stagecheck: {e}");
            ExitCode::from(2)
        }
    }
}

fn fuzz_cmd(args: FuzzArgs) -> Result<ExitCode, InputError> {
    use stagecheck::fuzz::{self, Families};
    let FuzzArgs { time, seed, jobs, family, out, programs, stop_at_first, time_limit, reduce_time, oracle, gpu } = args;
    let mut modes = fuzz::MODES.to_vec();
    if gpu {
        modes.push(Mode::StagedGpu);
    }
    stagecheck::modes::available(&modes).map_err(InputError)?;
    let cpython = match oracle {
        Some(ExtraOracle::Cpython) => Some(stagecheck::cpython::Python::find().map_err(InputError)?),
        None => None,
    };
    let reduce_time = duration_or_zero("--reduce-time", &reduce_time)?;
    let (time, family) = (time.as_str(), family.as_str());
    let time = fuzz::parse_duration(time).ok_or_else(|| InputError(format!("--time: not a duration: {time:?} (try 90s, 10m, 1h)")))?;
    let families = match family {
        "plain" => Families::Plain,
        "tensor" => Families::Tensor,
        "both" => Families::Both,
        other => return Err(InputError(format!("--family: unknown family {other:?} (plain, tensor or both)"))),
    };
    if jobs == 0 {
        return Err(InputError("--jobs must be at least 1".into()));
    }
    let out = out.unwrap_or_else(|| PathBuf::from("reports").join(fuzz::timestamp()));
    let options = fuzz::Options {
        time,
        seed,
        jobs,
        families,
        out: out.clone(),
        // The fuzz loop never shows graphs: do not print them per run.
        exec: Config { keep_graph: false, ..config(time_limit, 512)? },
        max_programs: programs,
        stop_at_first,
        reduce_time,
        cpython,
        modes,
    };
    let bar = indicatif::ProgressBar::new_spinner();
    bar.enable_steady_tick(Duration::from_millis(200));
    // Each new finding is announced once its directory is whole on disk.
    let announced = std::sync::Mutex::new(std::collections::HashSet::new());
    let progress = |s: &fuzz::stats::Stats| {
        let cpython = s.cpython.iter().flat_map(|c| &c.findings);
        let mut announced = announced.lock().expect("announced findings");
        for f in s.findings.iter().chain(cpython).filter(|f| announced.insert(f.id.clone())) {
            let line = format!("new finding {}: {}", f.id, f.path.display());
            if bar.is_hidden() { println!("{line}") } else { bar.println(line) }
        }
        bar.set_message(format!(
            "{} programs, {:.1} checks/s, {} findings ({} new), refused {:.1}%",
            s.programs,
            s.rate(),
            s.finding_hits,
            s.findings.len(),
            100.0 * s.refused as f64 / s.programs.max(1) as f64
        ));
    };
    let stats = fuzz::run(&options, &progress).map_err(|e| InputError(format!("{}: {e}", out.display())))?;
    bar.finish_and_clear();
    let summary = fuzz::report::Summary::of_run(&options, &stats);
    fuzz::report::write(&out, &summary).map_err(|e| InputError(format!("{}: {e}", out.display())))?;
    print!("{}", fuzz::report::markdown(&summary));
    println!("\nreport: {} (and index.html)", out.join("summary.md").display());
    Ok(if stats.new_findings() == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn report_cmd(dirs: &[PathBuf], out: Option<&Path>) -> Result<ExitCode, InputError> {
    use stagecheck::fuzz::report;
    let summary = match (dirs, out) {
        ([dir], None) => report::rebuild(dir).map_err(InputError)?,
        (_, None) => return Err(InputError("--out is required to merge several reports".into())),
        (dirs, Some(out)) => report::merge(dirs, out).map_err(InputError)?,
    };
    let at = out.unwrap_or(&dirs[0]);
    let runs = summary.runs.len();
    println!("report: {} ({runs} run{}, {} programs, {} findings)", at.join("index.html").display(), if runs == 1 { "" } else { "s" }, summary.programs, summary.stats.findings.len());
    Ok(ExitCode::SUCCESS)
}

fn corpus_review(dir: &Path, out: &Path) -> Result<ExitCode, InputError> {
    let reviewed = stagecheck::html::review::review(dir, out).map_err(InputError)?;
    let failed = reviewed.iter().filter(|r| r.pass.is_err()).count();
    println!("corpus review: {} entries ({failed} not as expected): {}", reviewed.len(), out.join("index.html").display());
    Ok(ExitCode::SUCCESS)
}

fn config(time_limit: f64, memory_limit: usize) -> Result<Config, InputError> {
    if !(time_limit.is_finite() && time_limit > 0.0) {
        return Err(InputError(format!("--time-limit must be a positive number of seconds, not {time_limit}")));
    }
    Ok(Config { time_limit: Duration::from_secs_f64(time_limit), memory_limit: memory_limit << 20, ..Config::default() })
}

fn run(file: &Path, json: bool, time_limit: f64, memory_limit: usize, mode: Mode, show_graph: bool) -> Result<ExitCode, InputError> {
    let config = config(time_limit, memory_limit)?;
    stagecheck::modes::available(&[mode]).map_err(InputError)?;
    let source = read_program(file)?;
    let mut worker = Worker::new(config);
    let path = file.display().to_string();
    // A syntax error is bad input in every mode: the original is compiled first.
    let mut outcome = worker.run(&source, &path).map_err(|e| syntax_error(file, &e))?;
    if mode != Mode::Original {
        let conversion = match stagecheck_transformer::convert(&source, &path) {
            Ok(c) => c,
            Err(e) if e.is_internal() => {
                eprintln!("{path}: crashed in conversion: {}", e.reason);
                return Ok(ExitCode::from(1));
            }
            Err(e) => return Err(InputError(format!("{}:{}: ConversionError: {}: {}", e.file, e.line, e.construct, e.reason))),
        };
        outcome = match stagecheck::modes::run_converted(&mut worker, &conversion, &path, mode) {
            ModeRun::Ran { outcome } => outcome,
            ModeRun::Refused { error } => {
                eprintln!("{path}:{}: StagingError: {}", error.line, error.reason);
                return Ok(ExitCode::from(1));
            }
            ModeRun::Uncompilable { message, line } => {
                eprintln!("{path}: the converted program does not compile (converted line {line}): {message}");
                return Ok(ExitCode::from(1));
            }
            ModeRun::ConverterCrashed { message } => {
                eprintln!("{path}: crashed in conversion: {message}");
                return Ok(ExitCode::from(1));
            }
        };
    }
    if show_graph {
        if outcome.graph.is_empty() {
            println!("(no graph: nothing was traced; graphs come from sc.function calls in --mode staged)");
        } else {
            println!("{}", outcome.graph);
        }
    }
    if json {
        let doc = serde_json::json!({ "file": path, "outcome": outcome });
        println!("{}", serde_json::to_string_pretty(&doc).expect("outcome serialises"));
    } else {
        println!("{path}");
        println!("{outcome}");
    }
    Ok(if outcome.is_failure() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn convert(file: &Path, map: bool) -> Result<ExitCode, InputError> {
    let source = read_program(file)?;
    let path = file.display().to_string();
    match stagecheck_transformer::convert_verified(&source, &path) {
        Ok(c) => {
            if map {
                for (i, line) in c.source.lines().enumerate() {
                    let o = c.map.lines.get(i).copied().unwrap_or(0);
                    let o = if o == 0 { "-".to_string() } else { o.to_string() };
                    println!("{:>4} {:>4} | {line}", i + 1, o);
                }
            } else {
                print!("{}", c.source);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if e.construct == "syntax" => Err(InputError(format!("{}:{}: syntax error: {}", e.file, e.line, e.reason))),
        Err(e) => {
            eprintln!("{e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn check_cmd(file: &Path, modes: &[Mode], json: bool, time_limit: f64, oracle: Option<ExtraOracle>) -> Result<ExitCode, InputError> {
    let config = config(time_limit, 512)?;
    let python = match oracle {
        Some(ExtraOracle::Cpython) => Some(stagecheck::cpython::Python::find().map_err(InputError)?),
        None => None,
    };
    stagecheck::modes::available(modes).map_err(InputError)?;
    let source = read_program(file)?;
    let path = file.display().to_string();
    let mut worker = Worker::new(config.clone());
    let report = check(&mut worker, &source, &path, modes)?;
    let cpython = python.as_ref().and_then(|python| match report.runs.first() {
        Some((_, ModeRun::Ran { outcome })) => Some((python, stagecheck::cpython::check(python, outcome, &source, &path, &config))),
        _ => None,
    });
    if json {
        let mut doc = serde_json::to_value(&report).expect("report serialises");
        if let Some((python, (run, verdict))) = &cpython {
            doc["cpython"] = serde_json::json!({ "version": python.version, "run": run, "verdict": verdict });
        }
        println!("{}", serde_json::to_string_pretty(&doc).expect("report serialises"));
    } else {
        print_report(&report);
        if let Some((python, (run, verdict))) = &cpython {
            println!("cpython {}: {verdict}", python.version);
            if let stagecheck::cpython::CpythonVerdict::Differs { differences, .. } = verdict {
                print_differences("cpython", differences);
            }
            if let stagecheck::cpython::CpythonRun::Ran { outcome } = run {
                println!("  {:<9} {}", "cpython", outcome.terminal);
            }
        }
    }
    let cpython_finding = cpython.as_ref().is_some_and(|(_, (_, v))| v.is_finding());
    Ok(if report.verdict.is_finding() || cpython_finding { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn print_report(report: &stagecheck::check::CheckReport) {
    let modes: Vec<String> = report.runs.iter().map(|(m, _)| m.to_string()).collect();
    match &report.verdict {
        Verdict::Agree => println!("{}: agree ({})", report.file, modes.join(", ")),
        Verdict::Refused { mode, construct, reason, line } => {
            let kind = if construct == "staging" { "StagingError" } else { "ConversionError" };
            println!("{}: refused in {mode}: {}:{line}: {kind}: {construct}: {reason}", report.file, report.file)
        }
        Verdict::Diverged { mode, differences } => {
            match differences.first() {
                Some(Difference::Crash { .. }) => println!("{}: CRASHED in {mode}", report.file),
                Some(Difference::ConverterCrash { .. }) => println!("{}: CRASHED in conversion ({mode})", report.file),
                _ => println!("{}: DIVERGED: original and {mode} part ways", report.file),
            }
            print_differences(mode.name(), differences);
        }
    }
    for (mode, run) in &report.runs {
        match run {
            ModeRun::Ran { outcome } if *mode == Mode::StagedGpu => println!("  {mode:<9} {}{}", outcome.terminal, gpu_note(outcome)),
            ModeRun::Ran { outcome } => println!("  {mode:<9} {}", outcome.terminal),
            ModeRun::Refused { error } => println!("  {mode:<9} refused: {}: {}", error.construct, error.reason),
            ModeRun::Uncompilable { message, .. } => println!("  {mode:<9} uncompilable: {message}"),
            ModeRun::ConverterCrashed { message } => println!("  {mode:<9} crashed in conversion: {message}"),
        }
    }
}

/// The differences of `mode`'s run from the original's, one per line.
fn print_differences(mode: &str, differences: &[Difference]) {
    for d in differences {
        match d {
            Difference::Terminal { original, other } => println!("  terminal: original {original}; {mode} {other}"),
            Difference::Stdout { line, original, other } => {
                println!("  stdout line {line}: original {original:?}; {mode} {other:?}")
            }
            Difference::Global { name, original, other } => {
                let show = |v: &Option<stagecheck::executor::Value>| v.as_ref().map_or("<absent>".to_string(), |v| v.to_string());
                println!("  global {name}: original {}; {mode} {}", show(original), show(other))
            }
            Difference::Crash { message } => println!("  the VM crashed in {mode}: {message}"),
            Difference::Uncompilable { message, line } if mode == "cpython" => {
                println!("  CPython does not compile the program (line {line}): {message}")
            }
            Difference::Uncompilable { message, line } => {
                println!("  the converted program does not compile (converted line {line}): {message}")
            }
            Difference::ConverterCrash { message } => println!("  crashed in conversion: {message}"),
        }
    }
}

fn corpus_replay(dir: &Path) -> Result<ExitCode, InputError> {
    let paths = stagecheck::corpus::files(dir);
    if paths.is_empty() {
        return Err(InputError(format!("{}: no .py files (is it the corpus directory?)", dir.display())));
    }
    let mut worker = Worker::new(Config::default());
    let mut failed = 0;
    for p in &paths {
        let entry = stagecheck::corpus::Entry::load(p).map_err(InputError)?;
        if let Err(e) = entry.replay(&mut worker) {
            println!("FAIL {e}");
            failed += 1;
        }
    }
    println!("corpus: {} programs, {} as expected, {failed} not", paths.len(), paths.len() - failed);
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

// --- Reduction and corpus additions (issue 6) ---

#[derive(clap::Args)]
struct ReduceArgs {
    /// The program (a finding's program.py, or any program that diverges).
    file: PathBuf,
    /// Comma-separated modes (default: the header's `# modes:` or replay
    /// command's, else all three).
    #[arg(long, value_delimiter = ',')]
    modes: Option<Vec<Mode>>,
    /// Where to write (default: reduced.py next to a finding's program.py, else FILE's stem + .reduced.py).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The finding to keep, KIND-MODE (terminal-staged, stdout-unstaged, ...), or auto: the one FILE shows.
    #[arg(long, default_value = "auto")]
    signature: String,
    /// Time budget: 90, 90s, 10m.
    #[arg(long, default_value = "60s")]
    time: String,
    /// Wall-clock limit of each run of the first check, in seconds (candidates get a shorter one).
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
    time_limit: f64,
}

#[derive(clap::Args)]
struct CorpusAddArgs {
    /// The program: a reduced finding (reduced.py), a finding's program.py, or any program.
    file: PathBuf,
    /// The corpus directory to add to.
    #[arg(long, default_value = "corpus/fuzz")]
    dir: PathBuf,
    /// The header's construct (default: the directory's name).
    #[arg(long)]
    construct: Option<String>,
    /// The entry's id (default: from the directory and the next free number, e.g. fuzz-003).
    #[arg(long)]
    id: Option<String>,
    /// Comma-separated modes (default: the file header's, else all three).
    #[arg(long, value_delimiter = ',')]
    modes: Option<Vec<Mode>>,
    /// Record the divergence as known and accepted, for this reason.
    #[arg(long, value_name = "REASON")]
    accepted: Option<String>,
    /// What the program checks (default: its finding and origin).
    #[arg(long)]
    about: Option<String>,
}

/// A duration flag where `0` means none.
fn duration_or_zero(flag: &str, text: &str) -> Result<Duration, InputError> {
    if text.trim().trim_end_matches('s') == "0" {
        return Ok(Duration::ZERO);
    }
    stagecheck::fuzz::parse_duration(text).ok_or_else(|| InputError(format!("{flag}: not a duration: {text:?} (try 5s, 1m, or 0)")))
}

fn reduce_cmd(args: ReduceArgs) -> Result<ExitCode, InputError> {
    use stagecheck::reduce::finding::{self, Target};
    let ReduceArgs { file, modes, out, signature, time, time_limit } = args;
    let text = read_program(&file)?;
    let modes = modes.or_else(|| finding::header_modes(&finding::split_header(&text).0)).unwrap_or_else(|| Mode::ALL.to_vec());
    let target = match signature.as_str() {
        "auto" => None,
        s => Some(s.parse::<Target>().map_err(|e| InputError(format!("--signature: {e}")))?),
    };
    let budget = duration_or_zero("--time", &time)?;
    let out = out.unwrap_or_else(|| finding::default_out(&file));
    let options = finding::Options { modes, exec: config(time_limit, 512)?, budget, target };
    let mut progress = |p: &stagecheck::reduce::Progress| {
        eprintln!("reduce: {:<20} {:>4} lines, {:>5} checks, {:>6.1} s", p.pass, p.lines, p.tests, p.elapsed.as_secs_f64())
    };
    let reduced = finding::reduce_file(&file, &out, &options, &mut progress).map_err(InputError)?;
    let r = &reduced.reduction;
    println!("{}: {} lines from {} ({}), {} checks in {:.1} s{}", out.display(), r.lines_after, r.lines_before,
        reduced.target, r.tests, r.elapsed.as_secs_f64(), if r.complete { "" } else { " (time budget reached)" });
    println!("replay: {}", finding::replay_command(&options.modes, &out));
    Ok(ExitCode::SUCCESS)
}

fn corpus_add(args: CorpusAddArgs) -> Result<ExitCode, InputError> {
    let CorpusAddArgs { file, dir, construct, id, modes, accepted, about } = args;
    let options = stagecheck::corpus::add::Options { dir, construct, id, modes, accepted, about };
    let path = stagecheck::corpus::add::add(&file, &options, &mut Worker::new(Config::default())).map_err(InputError)?;
    println!("{}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// Mesa's Vulkan drivers print "XDG_RUNTIME_DIR is invalid or not set" at
/// every start where it is unset (CI, containers): give them a private one
/// (0700, as they check), before any thread exists.
fn quiet_vulkan_loader() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let Ok(me) = std::fs::metadata("/proc/self") else { return };
    let dir = std::env::temp_dir().join(format!("stagecheck-runtime-{}", me.uid()));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let made = std::fs::metadata(&dir).is_ok_and(|m| m.is_dir() && m.uid() == me.uid())
        && std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).is_ok();
    if made {
        // SAFETY: called first thing in main, while this is the only thread.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}

/// `stagecheck devices`: the adapter staged-gpu runs on, or why there is none.
fn devices() -> ExitCode {
    println!("cpu: the graph executor (ndarray), always");
    match stagecheck_gpu::Gpu::available() {
        Ok(gpu) => {
            println!("gpu: {}", gpu.adapter_info());
            ExitCode::SUCCESS
        }
        Err(why) => {
            println!("gpu: none: {why}");
            ExitCode::from(1)
        }
    }
}

/// How a staged-gpu run's floats were compared.
fn gpu_note(outcome: &stagecheck::executor::Outcome) -> String {
    match outcome.tolerance {
        None => " (no graph ran on the GPU)".into(),
        Some(t) if t.is_exact() => " (on the GPU; floats compared bit for bit: only exact ops ran)".into(),
        Some(t) => format!(" (on the GPU; floats compared within {} ULP, abs {:e}, rel {:e})", t.ulps, t.abs, t.rel),
    }
}
