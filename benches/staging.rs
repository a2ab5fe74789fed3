//! The seeds' loop workloads, per call of the staged function: the staged
//! CPU graph against the same program run eagerly in RustPython (target: at
//! least 20x faster), against its NumPy port under CPython (target: at least
//! 3x faster) and, where it has one (`_tf.py`), against its tf.function
//! port (TF 2.21 CPU; traced before the timing). Programs: `benches/staging/{rnn,sgd,decode,sgd_variable}.py`
//! and their `_numpy.py` ports (sgd_variable: sgd with its parameters in
//! `sc.Variable`s, read and assigned by host nodes at every step; rnn_outputs:
//! rnn with each step's state appended to a list in the staged loop, stacked
//! after it by the graph's list ops; sgd_history: sgd_variable returning its
//! loss history, a Variable and a list in one staged loop; sgd_tape:
//! sgd_variable with its gradients from `sc.GradientTape` in the staged
//! loop, against the NumPy port with the hand gradient; rnn_large: rnn at
//! the size of seed 002's, where the kernels set the time; matmul_chain:
//! four 1024² float32 matmuls; both print their GFLOP/s).
//!
//! Per-call times: a run with 1 call and a run with 1 + N calls; the
//! difference over N leaves out interpreter, compile and trace costs. NumPy
//! times itself (`time.perf_counter`). The CPython with NumPy is
//! `$STAGECHECK_NUMPY_PYTHON` (scripts/bench-staging makes a venv with NumPy
//! from PyPI and sets it); without it the NumPy column is skipped, saying so.
//!
//!     scripts/bench-staging [-- WORKLOAD...]   # or: cargo bench --bench staging
//!
//! `STAGING_CALLS=n` instead runs the workloads named in the arguments (all
//! when none) once each, staged, with exactly `n` calls, in this process,
//! untimed: `scripts/bench-instructions` counts the instructions of a run
//! with 1 call and one with 1 + n under callgrind, a per-call figure that a
//! busy machine does not disturb (wall-clock times here vary by half).
//!
//! `STAGING_GENERATED=n` instead runs the fuzz bench's first `n` generated
//! tensor programs (`STAGING_FAMILY=plain`: plain programs) once each, in
//! the mode the first argument names (`original`, `unstaged`, else
//! `staged`), in this process: `scripts/bench-instructions --generated`
//! counts the instructions of their runs (tracing included), converted
//! against original.

use stagecheck::executor::{Config, Terminal};
use stagecheck::modes::Mode;
use stagecheck::worker::Worker;
use std::time::{Duration, Instant};

const WORKLOADS: &[(&str, &str, &str, usize)] = &[
    ("rnn", include_str!("staging/rnn.py"), include_str!("staging/rnn_numpy.py"), 20),
    ("sgd", include_str!("staging/sgd.py"), include_str!("staging/sgd_numpy.py"), 20),
    ("decode", include_str!("staging/decode.py"), include_str!("staging/decode_numpy.py"), 20),
    ("sgd_variable", include_str!("staging/sgd_variable.py"), include_str!("staging/sgd_variable_numpy.py"), 20),
    ("rnn_outputs", include_str!("staging/rnn_outputs.py"), include_str!("staging/rnn_outputs_numpy.py"), 20),
    ("sgd_history", include_str!("staging/sgd_history.py"), include_str!("staging/sgd_history_numpy.py"), 20),
    // The gradients from a tape in the staged loop; NumPy keeps the hand gradient.
    ("sgd_tape", include_str!("staging/sgd_tape.py"), include_str!("staging/sgd_variable_numpy.py"), 20),
    // Where the kernels, not the per-call overhead, set the time.
    ("rnn_large", include_str!("staging/rnn.py"), include_str!("staging/rnn_numpy.py"), 5),
    ("matmul_chain", include_str!("staging/matmul_chain.py"), include_str!("staging/matmul_chain_numpy.py"), 3),
];

/// The tf.function ports (TF 2.21, CPU), where there is one.
const TF_PORTS: &[(&str, &str)] = &[
    ("rnn", include_str!("staging/rnn_tf.py")),
    ("sgd", include_str!("staging/sgd_tf.py")),
    ("decode", include_str!("staging/decode_tf.py")),
    ("rnn_large", include_str!("staging/rnn_tf.py")),
    ("matmul_chain", include_str!("staging/matmul_chain_tf.py")),
];

/// `text` of workload `name`, resized for `rnn_large`.
fn resized(name: &str, text: &str) -> String {
    if name != "rnn_large" {
        return text.to_string();
    }
    assert!(text.contains(RNN_SIZES.0), "rnn.py and its ports name their sizes");
    text.replace(RNN_SIZES.0, RNN_SIZES.1)
}

/// The sizes line of rnn.py and its port, and the sizes of `rnn_large`:
/// seed 002's RNN (T = 32 steps, batch 64, 256 inputs, 256 hidden units).
const RNN_SIZES: (&str, &str) = ("T, BATCH, IN, HIDDEN = 64, 8, 16, 16", "T, BATCH, IN, HIDDEN = 32, 64, 256, 256");

/// The workloads, `rnn_large`'s programs resized.
fn workloads() -> impl Iterator<Item = (&'static str, String, String, usize)> {
    WORKLOADS.iter().map(|&(name, program, port, n)| (name, resized(name, program), resized(name, port), n))
}

/// Floating-point operations per call of the workloads at scale (a
/// multiply-add counted as two), for their GFLOP/s.
const FLOPS: &[(&str, f64)] = &[
    // 32 steps of [64, 256] @ [256, 256], twice.
    ("rnn_large", 32.0 * 2.0 * 2.0 * 64.0 * 256.0 * 256.0),
    ("matmul_chain", 4.0 * 2.0 * 1024.0 * 1024.0 * 1024.0),
];

/// The workload with `calls` calls, as `mode` runs it.
fn source(program: &str, calls: usize, mode: Mode) -> String {
    let source = program.replace("__CALLS__", &calls.to_string());
    if mode != Mode::Staged {
        return source;
    }
    // Staging runs the converted program (as `stagecheck check` does).
    stagecheck_transformer::convert(&source, "bench.py").expect("the workload converts").source
}

/// Seconds of one run of `program` with `calls` calls (best of three).
fn run(worker: &mut Worker, program: &str, calls: usize, mode: Mode) -> (f64, String) {
    let source = source(program, calls, mode);
    let mut best = f64::INFINITY;
    let mut stdout = String::new();
    for _ in 0..3 {
        let start = Instant::now();
        let out = worker.run_in(&source, "bench.py", mode).expect("the workload compiles");
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(out.terminal, Terminal::Completed, "{mode:?}: {}", out.terminal);
        best = best.min(secs);
        stdout = out.stdout;
    }
    (best, stdout)
}

fn per_call(worker: &mut Worker, program: &str, n: usize, mode: Mode) -> (f64, String) {
    let (one, _) = run(worker, program, 1, mode);
    let (many, stdout) = run(worker, program, 1 + n, mode);
    (((many - one) / n as f64).max(1e-9), stdout)
}

/// Seconds per call of a port, as it times itself, under the CPython that
/// the environment variable `python` names.
fn port_time(python: &str, port: &str, n: usize) -> Option<f64> {
    let python = std::env::var(python).ok()?;
    // From a file: AutoGraph reads the source of the functions it converts.
    let file = std::env::temp_dir().join(format!("stagecheck-port-{}.py", std::process::id()));
    std::fs::write(&file, port).ok()?;
    let out = std::process::Command::new(python).arg(&file).arg(n.to_string()).output();
    let _ = std::fs::remove_file(&file);
    let out = out.ok()?;
    if !out.status.success() {
        eprintln!("port failed: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    String::from_utf8_lossy(&out.stdout).split_whitespace().next()?.parse().ok()
}

/// Whether the command line names workload `name`, or names none.
fn picked(name: &str) -> bool {
    let named: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    named.is_empty() || named.iter().any(|n| n == name)
}

/// `STAGING_CALLS`'s mode (module doc): the picked workloads' staged runs.
fn counted(calls: usize, config: Config) {
    let mut worker = Worker::in_process(config);
    for (name, program, _, _) in workloads().filter(|w| picked(w.0)) {
        let out = worker.run_in(&source(&program, calls, Mode::Staged), "bench.py", Mode::Staged).expect("the workload compiles");
        assert_eq!(out.terminal, Terminal::Completed, "{name}: {}", out.terminal);
        print!("{name}: {}", out.stdout);
    }
}

/// `STAGING_GENERATED=n`'s mode (module doc): the fuzz bench's first `n`
/// programs of `family` (seed 11; the bench alternates the families, plain
/// first), each run once in the mode the first argument names (original,
/// unstaged; else staged: the converted program), in this process; prints
/// the sum of their `execute` phases.
fn generated(count: u64, family: stagecheck_generator::Family, mode: Mode, config: Config) {
    let mut worker = Worker::in_process(config);
    let mut execute = Duration::ZERO;
    let first = u64::from(family == stagecheck_generator::Family::Tensor);
    for k in 0..count {
        let case = stagecheck::fuzz::case::Case::from_seed(11, 2 * k + first, family);
        let source = match mode {
            Mode::Original => case.program.source,
            _ => match stagecheck_transformer::convert(&case.program.source, "bench.py") {
                Ok(c) => c.source,
                Err(_) => continue,
            },
        };
        let _ = worker.run_in(&source, "bench.py", mode);
        execute += worker.last_phases().execute;
    }
    println!("{count} generated {family:?} programs, {mode:?}: execute {:.1} ms", execute.as_secs_f64() * 1e3);
}

fn main() {
    let mut config = Config { time_limit: Duration::from_secs(120), ..Config::default() };
    if let Some(count) = std::env::var("STAGING_GENERATED").ok().and_then(|n| n.parse().ok()) {
        let mode = match std::env::args().nth(1).as_deref() {
            Some("original") => Mode::Original,
            Some("unstaged") => Mode::Unstaged,
            _ => Mode::Staged,
        };
        // As the fuzz loop runs them: no graph text per run.
        config.keep_graph = false;
        let family = match std::env::var("STAGING_FAMILY").as_deref() {
            Ok("plain") => stagecheck_generator::Family::Plain,
            _ => stagecheck_generator::Family::Tensor,
        };
        return generated(count, family, mode, config);
    }
    if let Some(calls) = std::env::var("STAGING_CALLS").ok().and_then(|n| n.parse().ok()) {
        config.time_limit = Duration::from_secs(3600);
        return counted(calls, config);
    }
    let mut worker = Worker::new(config);
    println!(
        "{:<12} {:>10} {:>10} {:>10} {:>11} {:>9} {:>9} {:>9}",
        "workload", "eager RP", "staged", "numpy", "tf.function", "vs eager", "vs numpy", "vs tf"
    );
    for (name, program, port, n) in workloads().filter(|w| picked(w.0)) {
        let (eager, eager_out) = per_call(&mut worker, &program, n, Mode::Original);
        let (staged, staged_out) = per_call(&mut worker, &program, n, Mode::Staged);
        assert_eq!(eager_out, staged_out, "{name}: staged and eager results differ");
        let np = port_time("STAGECHECK_NUMPY_PYTHON", &port, 50);
        let tf = TF_PORTS.iter().find(|p| p.0 == name).and_then(|p| port_time("STAGECHECK_TF_PYTHON", &resized(name, p.1), 50));
        let ms = |s: f64| format!("{:.3} ms", s * 1e3);
        let or_na = |t: Option<f64>, f: &dyn Fn(f64) -> String| t.map_or("n/a".into(), f);
        println!(
            "{:<12} {:>10} {:>10} {:>10} {:>11} {:>8.1}x {:>9} {:>9}",
            name,
            ms(eager),
            ms(staged),
            or_na(np, &ms),
            or_na(tf, &ms),
            eager / staged,
            or_na(np, &|t| format!("{:.1}x", t / staged)),
            or_na(tf, &|t| format!("{:.1}x", t / staged)),
        );
        if let Some((_, flops)) = FLOPS.iter().find(|f| f.0 == name) {
            let gflops = |s: f64| format!("{:.1}", flops / s / 1e9);
            println!("{:<12} GFLOP/s: staged {}, numpy {}, tf.function {}", "", gflops(staged), or_na(np, &gflops), or_na(tf, &gflops));
        }
    }
    if std::env::var("STAGECHECK_NUMPY_PYTHON").is_err() {
        println!("(numpy: STAGECHECK_NUMPY_PYTHON is not set; scripts/bench-staging provides it)");
    }
    if std::env::var("STAGECHECK_TF_PYTHON").is_err() {
        println!("(tf.function: STAGECHECK_TF_PYTHON is not set; scripts/bench-staging provides it once scripts/target-venv has made the TF venv)");
    }
}
