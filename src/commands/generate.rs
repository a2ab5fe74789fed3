//! `stagecheck generate`: writes generated programs as files (for external
//! targets and for people who want programs, as csmith does). Program `i` of
//! seed `s` is the fuzz loop's program `i` of seed `s` (same family choice,
//! same bytes, same Config), so a file names a fuzz case and the reverse.

use stagecheck::fuzz::case::Case;
use stagecheck::fuzz::Families;
use stagecheck::input::InputError;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct GenerateArgs {
    /// Program families: plain, tensor, or both (alternating, as in fuzz).
    #[arg(long, default_value = "plain")]
    family: String,
    /// The seed: program i of seed s is always the same program.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many programs.
    #[arg(long, default_value_t = 10)]
    count: u64,
    /// The first program's index.
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// The directory the files go to (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// The programs `fuzz --target NAME` runs: a built-in target's generator
    /// settings (the rows it never supports, its fuel).
    #[arg(long, value_name = "TARGET")]
    target: Option<String>,
}

pub(crate) fn generate_cmd(args: GenerateArgs) -> Result<ExitCode, InputError> {
    let GenerateArgs { family, seed, count, start, out, target } = args;
    let settings = match target.as_deref() {
        Some(name) => stagecheck::targets::generator_settings(name).ok_or_else(|| {
            InputError(format!("--target: {name:?} is no built-in target ({})", stagecheck::targets::builtin_names().join(", ")))
        })?,
        None => stagecheck_generator::Settings::DEFAULT,
    };
    let families = match family.as_str() {
        "plain" => Families::Plain,
        "tensor" => Families::Tensor,
        "both" => Families::Both,
        other => return Err(InputError(format!("--family: unknown family {other:?} (plain, tensor or both)"))),
    };
    let end = start.checked_add(count).ok_or_else(|| InputError("--start + --count overflows".into()))?;
    std::fs::create_dir_all(&out).map_err(|e| InputError(format!("{}: {e}", out.display())))?;
    for index in start..end {
        let family = families.of(index);
        let case = Case::from_seed_for(seed, index, family, &settings);
        let name = family.name();
        let path = out.join(format!("{name}-s{seed}-{index:06}.py"));
        let text = format!(
            "# stagecheck generate: family {name}, seed {seed}, index {index}, generator {}\n# constructs: {}\n{}",
            stagecheck_generator::VERSION,
            case.program.constructs.join(" "),
            case.program.source
        );
        std::fs::write(&path, text).map_err(|e| InputError(format!("{}: {e}", path.display())))?;
    }
    println!("{count} programs written to {}", out.display());
    Ok(ExitCode::SUCCESS)
}
