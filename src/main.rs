//! The `stagecheck` command line.

use clap::{Parser, Subcommand};
use stagecheck::executor::{Config, Worker};
use stagecheck::input::{read_program, syntax_error, InputError};
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
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { file, json, time_limit, memory_limit } => {
            run(&file, json, time_limit, memory_limit)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("stagecheck: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(file: &Path, json: bool, time_limit: f64, memory_limit: usize) -> Result<ExitCode, InputError> {
    if !(time_limit.is_finite() && time_limit > 0.0) {
        return Err(InputError(format!("--time-limit must be a positive number of seconds, not {time_limit}")));
    }
    let source = read_program(file)?;
    let config = Config {
        time_limit: Duration::from_secs_f64(time_limit),
        memory_limit: memory_limit << 20,
        ..Config::default()
    };
    let mut worker = Worker::new(config);
    let path = file.display().to_string();
    let outcome = worker.run(&source, &path).map_err(|e| syntax_error(file, &e))?;
    if json {
        let doc = serde_json::json!({ "file": path, "outcome": outcome });
        println!("{}", serde_json::to_string_pretty(&doc).expect("outcome serialises"));
    } else {
        println!("{path}");
        println!("{outcome}");
    }
    Ok(if outcome.is_failure() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
