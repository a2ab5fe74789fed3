//! Input bytes → a generated program (plain or tensor, by the first byte) →
//! checked in every mode; a finding panics with its signature.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecheck::fuzz::{case::Case, outcome};
use stagecheck_generator::Family;
use std::cell::RefCell;

thread_local! {
    static WORKER: RefCell<stagecheck::worker::Worker> =
        RefCell::new(stagecheck::worker::Worker::in_process(Default::default()));
}

fuzz_target!(|data: &[u8]| {
    let family = if data.first().is_some_and(|b| b & 1 == 1) { Family::Tensor } else { Family::Plain };
    let case = Case::from_bytes(data.to_vec(), family, 0, 0);
    let checked = WORKER.with(|w| outcome::check_case(&mut w.borrow_mut(), &case));
    if let outcome::Kind::Finding { signature, .. } = checked.kind {
        panic!("stagecheck finding {}:\n{}", signature.id(), case.program.source);
    }
});
