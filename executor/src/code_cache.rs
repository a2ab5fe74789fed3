//! Compiled programs, kept by source text: the converted program runs twice
//! (unstaged, then staged), and RustPython's compiler is the largest fixed
//! cost of a run (about 30 us per line of converted code; `benches/fuzz.rs`).
//!
//! What is kept is the compiler's output (`bytecode::CodeObject`), never a
//! `PyCode`: every run gets a fresh `PyCode` made from it, as `vm.compile`
//! would make, because RustPython's adaptive interpreter rewrites a `PyCode`'s
//! instructions while it runs (specialisation, inline caches keyed by dict
//! versions that a fresh scope can repeat): a run must not inherit another's.
//!
//! `vm.compile` would also parse the source a second time to warn about
//! invalid escape sequences; the sandbox ignores every warning (`sandbox.rs`),
//! so those warnings are not made.

use rustpython_vm::{
    builtins::PyCode,
    bytecode::{AsBag, CodeObject},
    compiler::{self, CompileError, Mode},
    PyRef, VirtualMachine,
};
use std::collections::VecDeque;

/// Programs kept: a case's converted program is run by consecutive jobs.
const CAPACITY: usize = 4;

#[derive(Default)]
pub(crate) struct CodeCache {
    /// (path, source, code), most recently used last.
    entries: VecDeque<(String, String, CodeObject)>,
}

impl CodeCache {
    /// A fresh code object for `source` compiled as `path`.
    pub(crate) fn code(&mut self, vm: &VirtualMachine, source: &str, path: &str) -> Result<PyRef<PyCode>, CompileError> {
        let found = self.entries.iter().position(|(p, s, _)| p == path && s == source);
        let entry = match found {
            Some(i) => self.entries.remove(i).expect("found above"),
            None => {
                let code = compiler::compile(source, Mode::Exec, path, vm.compile_opts())?;
                if self.entries.len() == CAPACITY {
                    self.entries.pop_front();
                }
                (path.to_owned(), source.to_owned(), code)
            }
        };
        // Mapped into Python objects straight from the kept code (no copy first).
        let code = vm.ctx.new_code(entry.2.map_clone_bag(&(&vm.ctx).as_bag()));
        self.entries.push_back(entry);
        Ok(code)
    }
}
