//! `stagecheck run`: one program in the sandboxed VM, in one mode; prints its outcome.

use super::config;
use stagecheck::input::{read_program, syntax_error, InputError};
use stagecheck::modes::{Mode, ModeRun};
use stagecheck::worker::Worker;
use std::path::Path;
use std::process::ExitCode;

pub(crate) fn run(
    file: &Path,
    json: bool,
    time_limit: f64,
    memory_limit: usize,
    mode: Mode,
    show_graph: bool,
) -> Result<ExitCode, InputError> {
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
