//! The `stagecheck` command line: parses the arguments and dispatches to
//! `commands/`, one file per subcommand.

mod commands;

use clap::{Parser, Subcommand};
use commands::corpus::CorpusAction;
use commands::fuzz::FuzzArgs;
use commands::reduce::ReduceArgs;
use commands::ExtraOracle;
use stagecheck::modes::Mode;
use std::path::PathBuf;
use std::process::ExitCode;

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
        /// Print the report as JSON (values always whole).
        #[arg(long)]
        json: bool,
        /// Print a difference's values and messages whole (without it, a long
        /// one is cut around its first difference: src/abbreviate.rs).
        #[arg(long)]
        full: bool,
        /// Wall-clock limit of each run, in seconds.
        #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
        time_limit: f64,
        /// An extra oracle: `cpython` also runs the original under python3 and
        /// compares it with RustPython's run (a difference is a RustPython bug).
        #[arg(long, value_enum)]
        oracle: Option<ExtraOracle>,
        /// staged-gpu: do not shadow each GPU op with the CPU kernel on the
        /// same inputs (faster; only the final values are then compared).
        #[arg(long)]
        no_gpu_shadow: bool,
        /// Run the program under a compiler under test instead (targets/README.md):
        /// `autograph`, or the path of an executable speaking the targets protocol.
        /// Its modes are those of --modes it runs.
        #[arg(long, value_name = "TARGET")]
        target: Option<String>,
        /// Also compare every gradient the program takes (sc.GradientTape, eagerly)
        /// with float64 central differences (src/oracles/gradcheck/mod.rs); a miss exits 1.
        #[arg(long)]
        gradcheck: bool,
    },
    /// Generate programs and check each in every mode; findings and a report
    /// go to reports/<timestamp>/ (or --out).
    ///
    /// Exit status: 0 when the run found nothing new, 1 when it saved new
    /// findings, 2 on bad usage.
    Fuzz(FuzzArgs),
    /// Write generated programs as files, one per program, each headed by its
    /// family, seed, index and constructs (program i of seed s is fuzz's).
    ///
    /// Exit status: 0 when written, 2 on bad usage or an unwritable directory.
    Generate(commands::generate::GenerateArgs),
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
        /// Also write kinds.md: the distinct findings for the compiler's
        /// maintainers (each with its hits, both sides, its reduced program
        /// and replay command), e.g. of a `fuzz --target` run.
        #[arg(long)]
        kinds: bool,
    },
    /// Shrink a program while its finding (kind and mode of divergence) holds;
    /// writes the reduced program, headed by the command that replays it.
    ///
    /// Exit status: 0 when written, 2 on bad input or when the program shows
    /// no finding (or not the one --signature names).
    Reduce(ReduceArgs),
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`| head`) would
    // panic; a command-line tool ends quietly instead, as cat and grep do.
    // SAFETY: setting a signal's disposition to its default, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    commands::quiet_vulkan_loader();
    // A worker process (src/worker/): not a command for people, so not in --help.
    if std::env::args_os().nth(1).is_some_and(|a| a == stagecheck::worker::SUBCOMMAND) {
        return stagecheck::worker::serve::serve();
    }
    if std::env::args_os().nth(1).is_some_and(|a| a == stagecheck::jail::SUBCOMMAND) {
        return stagecheck::jail::launch::main(std::env::args_os().skip(2).collect());
    }
    stagecheck::worker::this_binary_serves();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { file, json, time_limit, memory_limit, mode, show_graph } => {
            commands::run::run(&file, json, time_limit, memory_limit, mode, show_graph)
        }
        Command::Convert { file, map } => commands::convert::convert(&file, map),
        Command::Corpus { action: CorpusAction::Replay { dir } } => commands::corpus::corpus_replay(&dir),
        Command::Corpus { action: CorpusAction::Add(args) } => commands::corpus::corpus_add(args),
        Command::Reduce(args) => commands::reduce::reduce_cmd(args),
        Command::Check { file, modes, json, full, time_limit, oracle, no_gpu_shadow, target, gradcheck } => {
            let output = if json { commands::check::Output::Json } else { commands::check::Output::Text { full } };
            commands::check::check_cmd(&file, &modes, output, time_limit, oracle, !no_gpu_shadow, target.as_deref(), gradcheck)
        }
        Command::Fuzz(args) => commands::fuzz::fuzz_cmd(args),
        Command::Generate(args) => commands::generate::generate_cmd(args),
        Command::Devices => Ok(commands::devices::devices()),
        Command::Report { dirs, out, kinds } => commands::report::report_cmd(&dirs, out.as_deref(), kinds),
        Command::Corpus { action: CorpusAction::Review { dir, out } } => commands::corpus::corpus_review(&dir, &out),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("stagecheck: {e}");
            ExitCode::from(2)
        }
    }
}
