//! Corpus replay: every program in corpus/ is checked in its modes and must
//! give the verdict its header expects.

use stagecheck::corpus::{files, Entry, Expect};
use stagecheck::executor::Config;
use stagecheck::worker::Worker;
use std::path::Path;

#[test]
fn corpus_replays() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let paths = files(&dir);
    assert!(paths.len() >= 150, "corpus has {} programs", paths.len());
    let mut worker = Worker::new(Config::default());
    let mut failures = Vec::new();
    let mut agree = 0;
    for p in &paths {
        match Entry::load(p).and_then(|e| e.replay(&mut worker).map(|_| e.expect)) {
            Ok(Expect::Agree) => agree += 1,
            Ok(_) => {}
            Err(e) => failures.push(e),
        }
    }
    println!("corpus: {} programs, {agree} agree, {} failures", paths.len(), failures.len());
    assert!(failures.is_empty(), "{} of {} corpus programs failed:\n{}", failures.len(), paths.len(), failures.join("\n"));
}
