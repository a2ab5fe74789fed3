//! Runs per second of a 10-line loop program through one reused interpreter.
//! Target: >= 3,000 runs/s on one core, release build.
//!
//!     cargo bench --bench executor

use stagecheck::executor::{Config, Executor, Terminal};
use std::time::{Duration, Instant};

const PROGRAM: &str = "\
total = 0
i = 0
while i < 50:
    if i % 3 == 0:
        total += i
    else:
        total -= 1
    i += 1
result = total * 2
print(result)
";

fn main() {
    let handle = std::thread::Builder::new()
        .stack_size(stagecheck::executor::worker::STACK_SIZE)
        .spawn(|| {
            let created = Instant::now();
            let mut ex = Executor::new(Config::default());
            let creation = created.elapsed();
            // Warm up, and check the program does what it should.
            for _ in 0..200 {
                let out = ex.run(PROGRAM, "bench.py").unwrap();
                assert_eq!(out.terminal, Terminal::Completed);
                assert_eq!(out.stdout, "750\n");
            }
            let mut runs = 0u64;
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(5) {
                ex.run(PROGRAM, "bench.py").unwrap();
                runs += 1;
            }
            let secs = start.elapsed().as_secs_f64();
            println!("interpreter creation: {:.1} ms", creation.as_secs_f64() * 1e3);
            println!(
                "executor/loop10: {runs} runs in {secs:.2} s = {:.0} runs/s ({:.1} us/run, one thread)",
                runs as f64 / secs,
                secs * 1e6 / runs as f64
            );
        })
        .unwrap();
    handle.join().unwrap();
}
