//! Three-way checks per second on generated programs, on one thread, and
//! where the time goes: generate (bytes -> Config -> program), convert,
//! each mode's run (original, unstaged, staged; compile + run + render),
//! and the comparison. Target (issue 5): >= 1,000 checks/s per core.
//!
//!     cargo bench --bench fuzz

use stagecheck::executor::{tensors::Mode as TMode, Config, Worker};
use stagecheck::fuzz::case::Case;
use stagecheck::modes::{run_converted, Mode, ModeRun};
use stagecheck::oracle::verdict;
use stagecheck_generator::Family;
use std::time::{Duration, Instant};

fn main() {
    // As the fuzz loop runs it: no graph text per run.
    let mut worker = Worker::new(Config { keep_graph: false, ..Config::default() });
    let n: u64 = 400;
    let mut t = [Duration::ZERO; 6];
    let names = ["generate", "convert", "original", "unstaged", "staged", "compare"];
    let started = Instant::now();
    for index in 0..n {
        let family = if index % 2 == 0 { Family::Plain } else { Family::Tensor };
        let s = Instant::now();
        let case = Case::from_seed(11, index, family);
        t[0] += s.elapsed();
        let s = Instant::now();
        let conversion = stagecheck_transformer::convert(&case.program.source, "bench.py");
        t[1] += s.elapsed();
        let s = Instant::now();
        let Ok(original) = worker.run_in(&case.program.source, "bench.py", TMode::Original) else { continue };
        t[2] += s.elapsed();
        let mut runs = vec![(Mode::Original, ModeRun::Ran { outcome: original })];
        if let Ok(c) = &conversion {
            for (k, mode) in [(3, Mode::Unstaged), (4, Mode::Staged)] {
                let s = Instant::now();
                runs.push((mode, run_converted(&mut worker, c, "bench.py", mode)));
                t[k] += s.elapsed();
            }
        }
        let s = Instant::now();
        std::hint::black_box(verdict(&runs));
        t[5] += s.elapsed();
    }
    let total = started.elapsed();
    println!(
        "fuzz/three-way: {n} generated programs in {:.2} s = {:.1} checks/s (one thread; target 1,000)",
        total.as_secs_f64(),
        n as f64 / total.as_secs_f64()
    );
    for (name, d) in names.iter().zip(t) {
        println!("  {name:<9} {:8.1} us/program ({:4.1}%)", d.as_secs_f64() * 1e6 / n as f64, 100.0 * d.as_secs_f64() / total.as_secs_f64());
    }
}
