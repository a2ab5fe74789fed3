//! Shared by the tests of the vendored RustPython's fixes (`vm_patches.rs`,
//! `codegen_patches.rs`).

use stagecheck_executor::{Config, Terminal, ThreadWorker};

/// What `src` prints, run as written; it must compile and complete.
pub fn stdout(src: &str) -> String {
    let out = ThreadWorker::new(Config::default()).run(src, "prog.py").expect("compiles");
    assert_eq!(out.terminal, Terminal::Completed, "{}", out.stdout);
    out.stdout
}
