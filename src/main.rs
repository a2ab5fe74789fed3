//! The `stagecheck` command line.

use clap::{Parser, Subcommand};
use stagecheck::executor::{Config, Worker};
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
    },
    /// Generate programs and check each in every mode; findings and a report
    /// go to reports/<timestamp>/ (or --out).
    ///
    /// Exit status: 0 when the run found nothing new, 1 when it saved new
    /// findings, 2 on bad usage.
    Fuzz(FuzzArgs),
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { file, json, time_limit, memory_limit, mode, show_graph } => {
            run(&file, json, time_limit, memory_limit, mode, show_graph)
        }
        Command::Convert { file, map } => convert(&file, map),
        Command::Corpus { action: CorpusAction::Replay { dir } } => corpus_replay(&dir),
        Command::Check { file, modes, json, time_limit } => check_cmd(&file, &modes, json, time_limit),
        Command::Fuzz(args) => fuzz_cmd(args),
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
    let FuzzArgs { time, seed, jobs, family, out, programs, stop_at_first, time_limit } = args;
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
    };
    let bar = indicatif::ProgressBar::new_spinner();
    bar.enable_steady_tick(Duration::from_millis(200));
    let progress = |s: &fuzz::stats::Stats| {
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
    fuzz::report::write(&out, &stats).map_err(|e| InputError(format!("{}: {e}", out.display())))?;
    print!("{}", fuzz::report::markdown(&stats));
    println!("\nreport: {}", out.join("summary.md").display());
    Ok(if stats.findings.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn config(time_limit: f64, memory_limit: usize) -> Result<Config, InputError> {
    if !(time_limit.is_finite() && time_limit > 0.0) {
        return Err(InputError(format!("--time-limit must be a positive number of seconds, not {time_limit}")));
    }
    Ok(Config { time_limit: Duration::from_secs_f64(time_limit), memory_limit: memory_limit << 20, ..Config::default() })
}

fn run(file: &Path, json: bool, time_limit: f64, memory_limit: usize, mode: Mode, show_graph: bool) -> Result<ExitCode, InputError> {
    let config = config(time_limit, memory_limit)?;
    let source = read_program(file)?;
    let mut worker = Worker::new(config);
    let path = file.display().to_string();
    // A syntax error is bad input in every mode: the original is compiled first.
    let mut outcome = worker.run(&source, &path).map_err(|e| syntax_error(file, &e))?;
    if mode != Mode::Original {
        let conversion = stagecheck_transformer::convert(&source, &path).map_err(|e| {
            InputError(format!("{}:{}: ConversionError: {}: {}", e.file, e.line, e.construct, e.reason))
        })?;
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

fn check_cmd(file: &Path, modes: &[Mode], json: bool, time_limit: f64) -> Result<ExitCode, InputError> {
    let config = config(time_limit, 512)?;
    let source = read_program(file)?;
    let path = file.display().to_string();
    let mut worker = Worker::new(config);
    let report = check(&mut worker, &source, &path, modes)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report).expect("report serialises"));
    } else {
        print_report(&report);
    }
    Ok(if report.verdict.is_finding() { ExitCode::from(1) } else { ExitCode::SUCCESS })
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
            println!("{}: DIVERGED: original and {mode} part ways", report.file);
            for d in differences {
                match d {
                    Difference::Terminal { original, other } => {
                        println!("  terminal: original {original}; {mode} {other}")
                    }
                    Difference::Stdout { line, original, other } => {
                        println!("  stdout line {line}: original {original:?}; {mode} {other:?}")
                    }
                    Difference::Global { name, original, other } => {
                        let show = |v: &Option<stagecheck::executor::Value>| v.as_ref().map_or("<absent>".to_string(), |v| v.to_string());
                        println!("  global {name}: original {}; {mode} {}", show(original), show(other))
                    }
                    Difference::Crash { message } => println!("  the VM crashed in {mode}: {message}"),
                    Difference::Uncompilable { message, line } => {
                        println!("  the converted program does not compile (converted line {line}): {message}")
                    }
                }
            }
        }
    }
    for (mode, run) in &report.runs {
        match run {
            ModeRun::Ran { outcome } => println!("  {mode:<9} {}", outcome.terminal),
            ModeRun::Refused { error } => println!("  {mode:<9} refused: {}: {}", error.construct, error.reason),
            ModeRun::Uncompilable { message, .. } => println!("  {mode:<9} uncompilable: {message}"),
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
