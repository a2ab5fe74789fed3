//! `stagecheck reduce`: shrinks a program while its finding holds and writes the reduced program.

use super::{config, duration_or_zero};
use stagecheck::input::{read_program, InputError};
use stagecheck::modes::Mode;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct ReduceArgs {
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
    /// Time budget of the whole command, its first check included: 90, 90s, 10m.
    #[arg(long, default_value = "60s")]
    time: String,
    /// Wall-clock limit of each run of the first check, in seconds (candidates get a shorter one).
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
    time_limit: f64,
    /// The compiler under test the finding is under (default: the header's
    /// replay command's `--target`); candidates run on its workers.
    #[arg(long, value_name = "TARGET")]
    target: Option<String>,
}

pub(crate) fn reduce_cmd(args: ReduceArgs) -> Result<ExitCode, InputError> {
    use stagecheck::reduce::finding::{self, Target};
    let ReduceArgs { file, modes, out, signature, time, time_limit, target: under_test } = args;
    // The budget bounds the whole command from here (the first check and
    // a target's start included), not only the search.
    let deadline = std::time::Instant::now() + duration_or_zero("--time", &time)?;
    let text = read_program(&file)?;
    let header = finding::split_header(&text).0;
    let under_test = under_test.or_else(|| finding::header_target(&header));
    let under_test = under_test.map(|t| stagecheck::targets::Target::resolve(&t)).transpose().map_err(InputError)?;
    let modes = modes.or_else(|| finding::header_modes(&header));
    let modes = match &under_test {
        Some(t) => t.modes_of(&modes.unwrap_or_else(|| t.modes.clone())).map_err(InputError)?,
        None => modes.unwrap_or_else(|| Mode::ALL.to_vec()),
    };
    let target = match signature.as_str() {
        "auto" => None,
        s => Some(s.parse::<Target>().map_err(|e| InputError(format!("--signature: {e}")))?),
    };
    let out = out.unwrap_or_else(|| finding::default_out(&file));
    let options = finding::Options { modes, under_test, exec: config(time_limit, 512)?, deadline, target };
    let mut progress = |p: &stagecheck::reduce::Progress| {
        eprintln!("reduce: {:<20} {:>4} lines, {:>5} checks, {:>6.1} s", p.pass, p.lines, p.tests, p.elapsed.as_secs_f64())
    };
    let reduced = finding::reduce_file(&file, &out, &options, &mut progress).map_err(InputError)?;
    let r = &reduced.reduction;
    println!(
        "{}: {} lines from {} ({}), {} checks in {:.1} s{}",
        out.display(),
        r.lines_after,
        r.lines_before,
        reduced.target,
        r.tests,
        r.elapsed.as_secs_f64(),
        if r.complete { "" } else { " (time budget reached)" }
    );
    println!("replay: {}", finding::replay_command(&options.modes, options.under_test.as_ref(), &out));
    Ok(ExitCode::SUCCESS)
}
