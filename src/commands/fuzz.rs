//! `stagecheck fuzz`: generates programs, checks each in every mode, and writes findings and a report.

use super::{config, duration_or_zero, ExtraOracle};
use stagecheck::executor::Config;
use stagecheck::input::InputError;
use stagecheck::modes::Mode;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
pub(crate) struct FuzzArgs {
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
    /// With --gpu: do not shadow each GPU op with the CPU kernel on the same
    /// inputs (faster; only the final values are then compared).
    #[arg(long)]
    no_gpu_shadow: bool,
    /// Fuzz a compiler under test instead (targets/README.md): `autograph`,
    /// or the path of an executable speaking the targets protocol. Programs
    /// run in the target's modes; --family both means the target's family.
    #[arg(long, value_name = "TARGET")]
    target: Option<String>,
}

pub(crate) fn fuzz_cmd(args: FuzzArgs) -> Result<ExitCode, InputError> {
    use stagecheck::fuzz::{self, Families};
    let FuzzArgs { time, seed, jobs, family, out, programs, stop_at_first, time_limit, reduce_time, oracle, gpu, no_gpu_shadow, target } =
        args;
    let mut modes = fuzz::MODES.to_vec();
    if gpu {
        modes.push(Mode::StagedGpu);
    }
    let target = match target.as_deref() {
        Some(_) if gpu || oracle.is_some() => {
            return Err(InputError("--target runs the target's own modes: no --gpu, no --oracle with it".into()))
        }
        Some(name) => Some(stagecheck::targets::Target::resolve(name).map_err(InputError)?),
        None => None,
    };
    match &target {
        Some(t) => modes = t.modes.clone(),
        None => stagecheck::modes::available(&modes).map_err(InputError)?,
    }
    let cpython = match oracle {
        Some(ExtraOracle::Cpython) => Some(stagecheck::oracles::cpython::Python::find().map_err(InputError)?),
        None => None,
    };
    let reduce_time = duration_or_zero("--reduce-time", &reduce_time)?;
    let (time, family) = (time.as_str(), family.as_str());
    let time = fuzz::parse_duration(time).ok_or_else(|| InputError(format!("--time: not a duration: {time:?} (try 90s, 10m, 1h)")))?;
    let families = match (family, target.as_ref().and_then(|t| t.family)) {
        ("both", Some(stagecheck_generator::Family::Plain)) => Families::Plain,
        ("both", Some(stagecheck_generator::Family::Tensor)) => Families::Tensor,
        _ => match family {
            "plain" => Families::Plain,
            "tensor" => Families::Tensor,
            "both" => Families::Both,
            other => return Err(InputError(format!("--family: unknown family {other:?} (plain, tensor or both)"))),
        },
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
        exec: Config { keep_graph: false, gpu_shadow: !no_gpu_shadow, ..config(time_limit, 512)? },
        max_programs: programs,
        stop_at_first,
        reduce_time,
        cpython,
        modes,
        target,
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
            if bar.is_hidden() {
                println!("{line}")
            } else {
                bar.println(line)
            }
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
