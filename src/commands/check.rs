//! `stagecheck check`: runs a program in several modes and compares them with the original.
//! Its lines show a difference's long values and messages cut around where
//! the sides part (`crate::abbreviate`: one global once made a 250 KB line);
//! `--full` prints them whole, `--json` always has them whole.

use super::{config, ExtraOracle};
use stagecheck::check::check_or_slow;
use stagecheck::input::{read_program, InputError};
use stagecheck::modes::{Mode, ModeRun};
use stagecheck::oracles::convergence::{Difference, Verdict};
use stagecheck::worker::Worker;
use std::path::Path;
use std::process::ExitCode;

/// How `check` prints its report.
#[derive(Clone, Copy)]
pub(crate) enum Output {
    /// The report as JSON, every value whole.
    Json,
    /// Lines; `full`: values and messages whole, else cut around their first difference.
    Text { full: bool },
}

// One parameter per `check` flag, passed from the parsed command line once.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_cmd(
    file: &Path,
    modes: &[Mode],
    output: Output,
    time_limit: f64,
    oracle: Option<ExtraOracle>,
    gpu_shadow: bool,
    target: Option<&str>,
    gradcheck: bool,
) -> Result<ExitCode, InputError> {
    let config = stagecheck::executor::Config { gpu_shadow, ..config(time_limit, 512)? };
    if let Some(name) = target {
        if oracle.is_some() {
            return Err(InputError(
                "--oracle cpython compares RustPython's runs; a --target runs its own original under its own runtime".into(),
            ));
        }
        if gradcheck {
            return Err(InputError("--gradcheck checks our runtime's gradients; a --target has its own".into()));
        }
        return check_target(file, modes, output, config, name);
    }
    let python = match oracle {
        Some(ExtraOracle::Cpython) => Some(stagecheck::oracles::cpython::Python::find().map_err(InputError)?),
        None => None,
    };
    stagecheck::modes::available(modes).map_err(InputError)?;
    let source = read_program(file)?;
    let path = file.display().to_string();
    let mut worker = Worker::new(config.clone());
    let report = check_or_slow(&mut worker, &source, &path, modes)?;
    let grads = if gradcheck { Some(stagecheck::oracles::gradcheck::gradcheck(&mut worker, &source, &path)?) } else { None };
    let cpython = python.as_ref().and_then(|python| match report.runs.first() {
        Some((_, ModeRun::Ran { outcome })) => {
            Some((python, stagecheck::oracles::cpython::check(python, outcome, &source, &path, &config)))
        }
        _ => None,
    });
    let full = match output {
        Output::Json => None,
        Output::Text { full } => Some(full),
    };
    if let Some(full) = full {
        print_report(&report, full);
        if let Some((python, (run, verdict))) = &cpython {
            println!("cpython {}: {verdict}", python.version);
            if let stagecheck::oracles::cpython::CpythonVerdict::Differs { differences, .. } = verdict {
                print_differences("cpython", differences, full);
            }
            if let stagecheck::oracles::cpython::CpythonRun::Ran { outcome } = run {
                println!("  {:<9} {}", "cpython", shown(&outcome.terminal.to_string(), full));
            }
        }
    } else {
        let mut doc = serde_json::to_value(&report).expect("report serialises");
        if let Some((python, (run, verdict))) = &cpython {
            doc["cpython"] = serde_json::json!({ "version": python.version, "run": run, "verdict": verdict });
        }
        if let Some(g) = &grads {
            doc["gradcheck"] = serde_json::to_value(g).expect("gradcheck serialises");
        }
        println!("{}", serde_json::to_string_pretty(&doc).expect("report serialises"));
    }
    if let (Some(g), Some(_)) = (&grads, full) {
        stagecheck::oracles::gradcheck::print(g);
    }
    let cpython_finding = cpython.as_ref().is_some_and(|(_, (_, v))| v.is_finding());
    let grad_finding = grads.as_ref().is_some_and(|g| g.is_finding());
    Ok(if report.verdict.is_finding() || cpython_finding || grad_finding { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `check --target NAME`: the program on the target's worker in the target's
/// modes among `modes`, compared by the same oracle.
fn check_target(
    file: &Path,
    modes: &[Mode],
    output: Output,
    config: stagecheck::executor::Config,
    name: &str,
) -> Result<ExitCode, InputError> {
    let target = stagecheck::targets::Target::resolve(name).map_err(InputError)?;
    let modes = target.modes_of(modes).map_err(InputError)?;
    let source = read_program(file)?;
    let path = file.display().to_string();
    let mut worker = Worker::for_target(&target, config).map_err(InputError)?;
    let version = worker.target_ready().map(|r| r.version.clone()).unwrap_or_default();
    let report = check_or_slow(&mut worker, &source, &path, &modes)?;
    match output {
        Output::Json => {
            let mut doc = serde_json::to_value(&report).expect("report serialises");
            doc["target"] = serde_json::json!({ "name": target.name, "version": version });
            println!("{}", serde_json::to_string_pretty(&doc).expect("report serialises"));
        }
        Output::Text { full } => {
            println!("target {} ({version})", target.name);
            print_report(&report, full);
        }
    }
    Ok(if report.verdict.is_finding() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn print_report(report: &stagecheck::check::CheckReport, full: bool) {
    let modes: Vec<String> = report.runs.iter().map(|(m, _)| m.to_string()).collect();
    match &report.verdict {
        Verdict::Agree => println!("{}: agree ({})", report.file, modes.join(", ")),
        Verdict::Refused { mode, construct, reason, line } => {
            let kind = match construct.as_str() {
                "staging" => "StagingError",
                stagecheck::targets::REFUSAL => "refused by the target",
                _ => "ConversionError",
            };
            println!("{}: refused in {mode}: {}:{line}: {kind}: {construct}: {reason}", report.file, report.file)
        }
        Verdict::Diverged { mode, differences } => {
            match differences.first() {
                Some(Difference::Crash { .. }) => println!("{}: CRASHED in {mode}", report.file),
                Some(Difference::ConverterCrash { .. }) => println!("{}: CRASHED in conversion ({mode})", report.file),
                Some(Difference::UnexpectedRefusal { .. }) => println!("{}: UNEXPECTED REFUSAL in {mode}", report.file),
                _ => println!("{}: DIVERGED: original and {mode} part ways", report.file),
            }
            print_differences(mode.name(), differences, full);
        }
    }
    if let Some(slow) = &report.slow {
        println!(
            "  slow: {} ran past the time limit, then ended as the original did, given {:.1} s ({}x the original's time, \
             at most {}x the limit): {:.1}x the original's time, slower but not divergent",
            slow.mode,
            slow.limit,
            stagecheck::check::SLOW_RATIO,
            stagecheck::fuzz::outcome::SLOW_FACTOR,
            slow.ratio
        );
    }
    for (mode, run) in &report.runs {
        let ended = |outcome: &stagecheck::executor::Outcome| shown(&outcome.terminal.to_string(), full);
        match run {
            ModeRun::Ran { outcome } if outcome.taken_from.is_some() => println!("  {mode:<9} {}{}", ended(outcome), taken_note(outcome)),
            ModeRun::Ran { outcome } if *mode == Mode::StagedGpu || outcome.tolerance.is_some() => {
                println!("  {mode:<9} {}{}", ended(outcome), gpu_note(outcome))
            }
            ModeRun::Ran { outcome } => println!("  {mode:<9} {}", ended(outcome)),
            ModeRun::Refused { error } => println!("  {mode:<9} refused: {}: {}", error.construct, shown(&error.reason, full)),
            ModeRun::Uncompilable { message, .. } => println!("  {mode:<9} uncompilable: {}", shown(message, full)),
            ModeRun::ConverterCrashed { message } => println!("  {mode:<9} crashed in conversion: {}", shown(message, full)),
        }
    }
}

/// A message or a run's ending: whole with `--full`, else cut when long.
fn shown(text: &str, full: bool) -> String {
    if full {
        text.to_string()
    } else {
        stagecheck::abbreviate::text(text)
    }
}

/// The differences of `mode`'s run from the original's, one per line;
/// `full`: values and messages whole.
fn print_differences(mode: &str, differences: &[Difference], full: bool) {
    for d in differences {
        println!("  {}", d.line(mode, full));
    }
}

/// Where an outcome that was not run came from.
fn taken_note(outcome: &stagecheck::executor::Outcome) -> String {
    let from = outcome.taken_from.as_deref().unwrap_or("another mode");
    format!(" (the {from} run's outcome: that run called no staged function and never read its mode, so staging changes nothing)")
}

/// How a staged-gpu run's floats were compared.
fn gpu_note(outcome: &stagecheck::executor::Outcome) -> String {
    let compared = match outcome.tolerance {
        None => return " (no graph ran on the GPU)".into(),
        Some(t) if t.is_exact() => "floats compared bit for bit: only exact ops ran".to_string(),
        Some(t) => format!("floats compared within {} ULP, abs {:e}, rel {:e}", t.ulps, t.abs, t.rel),
    };
    match &outcome.gpu_flushed {
        None => format!(" (on the GPU; {compared})"),
        Some(note) => format!(
            " (on the GPU; {compared}; it flushed float32 subnormals to zero, as WGSL allows, first at {note}: what follows may part ways as the platform allows)"
        ),
    }
}
