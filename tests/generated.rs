//! Generated programs are valid and terminate, sampled: a
//! proptest over random input bytes and random swarm `Config`s, both
//! families. Each program compiles under CPython, through the CPython
//! oracle's own wrapper (which compiles before it runs: tensor programs then
//! stop at `import stagecheck`, plain ones run to the end and must complete
//! within the limit), and runs in the original mode under RustPython, with
//! the fuzz loop's limits, to `Completed`: no loop or recursion past its fuel
//! (a divergence would make every mode "agree" and check nothing), no crash,
//! no exception escaping the top level (every raise is caught where the
//! generator put it).
//!
//!     cargo test --release --workspace --test generated    # STAGECHECK_GEN_CASES=N for more

use arbitrary::{Arbitrary, Unstructured};
use proptest::prelude::*;
use stagecheck::executor::{Config, Terminal};
use stagecheck::oracles::cpython::{CpythonRun, Python};
use stagecheck::worker::Worker;
use stagecheck_generator::{generate, Config as GenConfig, Family};

fn cases() -> u32 {
    std::env::var("STAGECHECK_GEN_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(12)
}

/// Why `source` fails the property, if it does.
fn check(python: &Python, worker: &mut Worker, source: &str, family: Family) -> Option<String> {
    let limits = worker.config().clone();
    match python.run(source, "generated.py", &limits) {
        CpythonRun::Uncompilable { message, line } => return Some(format!("CPython cannot compile it: line {line}: {message}")),
        CpythonRun::Skipped { reason } if family == Family::Plain => return Some(format!("CPython did not finish it: {reason}")),
        CpythonRun::Ran { outcome } if outcome.terminal != Terminal::Completed => {
            return Some(format!("under CPython it ended {:?}", outcome.terminal))
        }
        _ => {}
    }
    match worker.run(source, "generated.py") {
        Err(e) => Some(format!("RustPython cannot compile it: {}", e.message)),
        Ok(outcome) if outcome.terminal != Terminal::Completed => Some(format!("the original run ended {:?}", outcome.terminal)),
        Ok(_) => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_compile_under_cpython_and_complete_in_the_original_mode(
        data in prop::collection::vec(any::<u8>(), 256..6144),
        config_bytes in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        let python = Python::find().expect("python3 runs (the CPython oracle's interpreter)");
        // The fuzz loop's limits (a 2 s run), in this process.
        let mut worker = Worker::in_process(Config { keep_graph: false, ..Config::default() });
        let config = GenConfig::arbitrary(&mut Unstructured::new(&config_bytes)).expect("a config never fails");
        for family in [Family::Plain, Family::Tensor] {
            let program = generate(&mut Unstructured::new(&data), &config, family).expect("never fails");
            if let Some(why) = check(&python, &mut worker, &program.source, family) {
                prop_assert!(false, "{family:?} program, {why}:\n{}", program.source);
            }
        }
    }
}

/// The property can fail: a program that loops, one that raises at the top
/// level and one CPython cannot compile are each caught.
#[test]
fn the_check_fails_on_a_looping_raising_or_uncompilable_program() {
    let python = Python::find().expect("python3 runs");
    let mut worker = Worker::in_process(Config { time_limit: std::time::Duration::from_millis(300), ..Config::default() });
    let looping = check(&python, &mut worker, "while True:\n    pass\n", Family::Plain).expect("a loop fails");
    assert!(looping.contains("did not finish"), "{looping}");
    let raising = check(&python, &mut worker, "x = 1\nraise KeyError(x)\n", Family::Plain).expect("a raise fails");
    assert!(raising.contains("Raised"), "{raising}");
    let bad = check(&python, &mut worker, "import stagecheck as sc\nx = (1 +\n", Family::Tensor).expect("a syntax error fails");
    assert!(bad.contains("cannot compile"), "{bad}");
}
