//! Every staged program of the corpus, checked with its graphs on GPU
//! kernels (`staged-gpu` in place of `staged`): the verdict its header
//! expects, floats within the ops' tolerance (src/oracles/close.rs). Runs on any
//! Vulkan adapter (Mesa's lavapipe here; scripts/deps installs it); skips,
//! saying so, only where there is none.

use stagecheck::corpus::{files, Entry};
use stagecheck::executor::Config;
use stagecheck::modes::Mode;
use stagecheck::worker::Worker;
use std::path::Path;

#[test]
fn staged_corpus_agrees_on_the_gpu() {
    if let Err(why) = stagecheck_gpu::Gpu::available() {
        eprintln!("SKIPPED: no Vulkan adapter: {why}");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut worker = Worker::new(Config::default());
    let (mut checked, mut failures) = (0, Vec::new());
    for p in files(&dir) {
        let mut entry = Entry::load(&p).expect("corpus entries load");
        // A compiler under test's entry (`# target:`) stages on that
        // compiler, not on our graphs (tests/targets.rs replays it).
        if !entry.modes.contains(&Mode::Staged) || entry.target.is_some() {
            continue;
        }
        for m in &mut entry.modes {
            if *m == Mode::Staged {
                *m = Mode::StagedGpu;
            }
        }
        checked += 1;
        if let Err(e) = entry.replay(&mut worker) {
            failures.push(e);
        }
    }
    println!("staged-gpu: {checked} staged corpus programs, {} failures", failures.len());
    assert!(checked >= 60, "only {checked} staged programs in the corpus");
    assert!(failures.is_empty(), "{} of {checked} failed:\n{}", failures.len(), failures.join("\n"));
}
