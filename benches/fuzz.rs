//! Three-way checks per second on generated programs, on one thread, and
//! where the time goes: generate (bytes -> Config -> program), convert,
//! each mode's run (original, unstaged, staged), and the comparison; each
//! run split into its phases (compile, setup, execute, render, restore, and
//! the hop to the worker's thread), and an empty program's run in each mode
//! for the fixed cost of a run. Target: >= 1,000 checks/s per core.
//!
//!     cargo bench --bench fuzz
//!
//! `STAGECHECK_BENCH_N` sets the number of programs (default 400);
//! `STAGECHECK_BENCH_WORKER=thread` runs the programs on a thread of the
//! bench's own process instead of a worker process (the default, as the CLI
//! runs them): the difference is the worker protocol's cost.

use stagecheck::executor::{Config, Phases};
use stagecheck::fuzz::case::Case;
use stagecheck::modes::{run_converted_after, Mode, ModeRun};
use stagecheck::oracles::convergence::verdict;
use stagecheck::worker::Worker;
use stagecheck_generator::Family;
use std::time::{Duration, Instant};

/// Time per stage of the check (generate, convert, three runs, compare) and
/// per phase of each run, for one family of programs.
#[derive(Default)]
struct Times {
    programs: u64,
    lines: usize,
    stages: [Duration; 6],
    runs: [Phases; 3],
    /// Staged runs taken from the unstaged run (it never read its mode).
    taken: u64,
}

const STAGES: [&str; 6] = ["generate", "convert", "original", "unstaged", "staged", "compare"];

fn main() {
    // As the fuzz loop runs it: no graph text per run.
    let config = Config { keep_graph: false, ..Config::default() };
    let in_process = std::env::var("STAGECHECK_BENCH_WORKER").is_ok_and(|w| w == "thread");
    let mut worker = if in_process { Worker::in_process(config) } else { Worker::new(config) };
    println!("fuzz/three-way: programs run on {}", if in_process { "a thread of this process" } else { "a worker process" });
    // A fuzz job's worker is started again, with the GPU, at its first staged
    // run of a program that places ops (`sc.device`), then serves every run
    // for up to 30 CPU-minutes (src/worker/process.rs): start the bench's so,
    // or that one start would be spread over the bench's few programs.
    let _ = worker.run_in("import stagecheck as sc\nwith sc.device('cpu'):\n    pass\n", "warm.py", Mode::Staged);
    let n: u64 = std::env::var("STAGECHECK_BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(400);
    let mut families = [Times::default(), Times::default()];
    let started = Instant::now();
    for index in 0..n {
        let family = if index % 2 == 0 { Family::Plain } else { Family::Tensor };
        let times = &mut families[(index % 2) as usize];
        let t = &mut times.stages;
        times.programs += 1;
        let s = Instant::now();
        let case = Case::from_seed(11, index, family);
        t[0] += s.elapsed();
        times.lines += case.program.source.lines().count();
        let s = Instant::now();
        let conversion = stagecheck_transformer::convert(&case.program.source, "bench.py");
        t[1] += s.elapsed();
        let s = Instant::now();
        let Ok(original) = worker.run_in(&case.program.source, "bench.py", Mode::Original) else { continue };
        t[2] += s.elapsed();
        times.runs[0] += worker.last_phases();
        let mut runs = vec![(Mode::Original, ModeRun::Ran { outcome: original })];
        if let Ok(c) = &conversion {
            for (k, mode) in [(3, Mode::Unstaged), (4, Mode::Staged)] {
                let s = Instant::now();
                let run = run_converted_after(&mut worker, c, "bench.py", mode, &runs);
                let taken = matches!(&run, ModeRun::Ran { outcome } if outcome.taken_from.is_some());
                runs.push((mode, run));
                t[k] += s.elapsed();
                if taken {
                    times.taken += 1;
                } else {
                    times.runs[k - 2] += worker.last_phases();
                }
            }
        }
        let s = Instant::now();
        std::hint::black_box(verdict(&runs));
        t[5] += s.elapsed();
    }
    let total = started.elapsed();
    let lines: usize = families.iter().map(|f| f.lines).sum();
    println!(
        "fuzz/three-way: {n} generated programs ({:.0} lines on average) in {:.2} s = {:.1} checks/s (one thread; target 1,000)",
        lines as f64 / n as f64,
        total.as_secs_f64(),
        n as f64 / total.as_secs_f64()
    );
    let all: [Duration; 6] = std::array::from_fn(|k| families.iter().map(|f| f.stages[k]).sum());
    let us = |d: Duration, count: u64| d.as_secs_f64() * 1e6 / count as f64;
    for (name, d) in STAGES.iter().zip(all) {
        println!("  {name:<9} {:8.1} us/program ({:4.1}%)", us(d, n), 100.0 * d.as_secs_f64() / total.as_secs_f64());
    }
    // The ceiling RustPython itself sets: a check runs the program as written
    // at least once, so no check is faster than generating it and running it.
    let floor = all[0] + all[2];
    println!(
        "  ceiling: generating and running the original alone take {:.1} us/program: at most {:.0} checks/s \
         even if conversion, the converted runs and the comparison cost nothing",
        us(floor, n),
        n as f64 / floor.as_secs_f64()
    );
    for (family, times) in ["plain", "tensor"].iter().zip(&families) {
        let p = times.programs.max(1);
        println!(
            "  {family} programs ({}, {:.0} lines on average), us/program: {}",
            times.programs,
            times.lines as f64 / p as f64,
            STAGES.iter().zip(times.stages).map(|(s, d)| format!("{s} {:.0}", us(d, p))).collect::<Vec<_>>().join(", ")
        );
        println!("    per run, us/program: {}", Phases::NAMES.map(|p| format!("{p:>8}")).join(""));
        for (mode, phases) in ["original", "unstaged", "staged"].iter().zip(times.runs) {
            println!("    {mode:<20} {}", phases.values().map(|d| format!("{:8.1}", us(d, p))).join(""));
        }
        // The figures: a check against the original run it checks,
        // and each converted mode's execution against the original's (a
        // staged run taken from the unstaged one executes nothing).
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
        let check: Duration = times.stages.iter().sum();
        let [original, unstaged, staged] = times.runs.map(|r| r.execute);
        println!(
            "    {family}: check/original {:.2}x, execute unstaged/original {:.2}x, staged/original {:.2}x \
             ({} of {} staged runs taken from the unstaged run: it never read its mode)",
            ratio(check, times.stages[2]),
            ratio(unstaged, original),
            ratio(staged, original),
            times.taken,
            times.programs
        );
    }
    fixed_cost(&mut worker);
}

/// A run of an (almost) empty program in each mode: what every run pays
/// before the program's own work.
fn fixed_cost(worker: &mut Worker) {
    let rounds = 200;
    for (mode, source) in [
        (Mode::Original, "pass\n"),
        (Mode::Unstaged, "from stagecheck import ag as ag__\n"),
        (Mode::Staged, "from stagecheck import ag as ag__\n"),
    ] {
        let mut sum = Phases::default();
        for _ in 0..rounds {
            worker.run_in(source, "bench.py", mode).expect("compiles");
            sum += worker.last_phases();
        }
        let us = |d: Duration| d.as_secs_f64() * 1e6 / rounds as f64;
        println!(
            "  empty program, {:<8} {:8.1} us/run: {}",
            format!("{mode:?}").to_lowercase(),
            us(sum.total()),
            Phases::NAMES.iter().zip(sum.values()).map(|(p, d)| format!("{p} {:.1}", us(d))).collect::<Vec<_>>().join(", ")
        );
    }
}
