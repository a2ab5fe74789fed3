//! `stagecheck corpus`: replays the regression corpus, adds a finding to it, or writes its review pages.

use clap::Subcommand;
use stagecheck::executor::Config;
use stagecheck::input::InputError;
use stagecheck::modes::Mode;
use stagecheck::worker::Worker;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Subcommand)]
pub(crate) enum CorpusAction {
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

#[derive(clap::Args)]
pub(crate) struct CorpusAddArgs {
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

pub(crate) fn corpus_replay(dir: &Path) -> Result<ExitCode, InputError> {
    let paths = stagecheck::corpus::files(dir);
    if paths.is_empty() {
        return Err(InputError(format!("{}: no .py files (is it the corpus directory?)", dir.display())));
    }
    let mut worker = Worker::new(Config::default());
    let (mut failed, mut skipped) = (0, 0);
    for p in &paths {
        let entry = stagecheck::corpus::Entry::load(p).map_err(InputError)?;
        if let Some(skip) = entry.skip() {
            println!("{skip}");
            skipped += 1;
            continue;
        }
        if let Err(e) = entry.replay(&mut worker) {
            println!("FAIL {e}");
            failed += 1;
        }
    }
    println!("corpus: {}", counts(paths.len(), failed, skipped));
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

pub(crate) fn corpus_add(args: CorpusAddArgs) -> Result<ExitCode, InputError> {
    let CorpusAddArgs { file, dir, construct, id, modes, accepted, about } = args;
    let options = stagecheck::corpus::add::Options { dir, construct, id, modes, accepted, about };
    let path = stagecheck::corpus::add::add(&file, &options, &mut Worker::new(Config::default())).map_err(InputError)?;
    println!("{}", path.display());
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn corpus_review(dir: &Path, out: &Path) -> Result<ExitCode, InputError> {
    let reviewed = stagecheck::html::review::review(dir, out).map_err(InputError)?;
    let failed = reviewed.iter().filter(|r| r.pass.is_err()).count();
    let skipped = reviewed.iter().filter(|r| r.skipped.is_some()).count();
    for skip in reviewed.iter().filter_map(|r| r.skipped.as_ref()) {
        println!("{skip}");
    }
    println!("corpus review: {}: {}", counts(reviewed.len(), failed, skipped), out.join("index.html").display());
    Ok(ExitCode::SUCCESS)
}

/// `replay`'s and `review`'s count line: how many entries, as expected, not, skipped.
fn counts(total: usize, failed: usize, skipped: usize) -> String {
    let skipped_note = if skipped > 0 { format!(", {skipped} skipped (their target cannot run here)") } else { String::new() };
    format!("{total} programs, {} as expected, {failed} not{skipped_note}", total - failed - skipped)
}
