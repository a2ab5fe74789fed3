//! RustPython's compiler on generated programs, original and converted:
//! microseconds per program, split into parse (ruff's parser, as RustPython
//! vendors it) and the rest (symbol table and code generation).
//!
//!     cargo bench --bench compile
//!
//! `STAGECHECK_BENCH_N` sets the number of programs per family (default 100);
//! `STAGECHECK_DUMP_DIR`, if set, receives every program timed (original and
//! converted, as `<family>-<index>-<original|converted>.py`), to compare
//! compilers' output on them (executor/vendor/rustpython-codegen/PATCHES.md).

use rustpython_vm::compiler::{self, parser, CompileOpts, Mode};
use stagecheck::fuzz::case::Case;
use stagecheck_generator::Family;
use std::hint::black_box;
use std::time::{Duration, Instant};

const REPEAT: u32 = 5;

fn time(f: impl Fn()) -> Duration {
    let s = Instant::now();
    for _ in 0..REPEAT {
        f();
    }
    s.elapsed() / REPEAT
}

fn main() {
    let n: u64 = std::env::var("STAGECHECK_BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    for family in [Family::Plain, Family::Tensor] {
        let (mut lines, mut parse, mut total) = ([0usize; 2], [Duration::ZERO; 2], [Duration::ZERO; 2]);
        for index in 0..n {
            let case = Case::from_seed(11, index, family);
            let Ok(c) = stagecheck_transformer::convert(&case.program.source, "bench.py") else { continue };
            let compiles = |s: &str| compiler::compile(s, Mode::Exec, "bench.py", CompileOpts::default()).is_ok();
            // RustPython rejects a few programs CPython compiles (its symbol table bugs).
            if !compiles(&case.program.source) || !compiles(&c.source) {
                continue;
            }
            if let Ok(dir) = std::env::var("STAGECHECK_DUMP_DIR") {
                for (what, source) in [("original", &case.program.source), ("converted", &c.source)] {
                    std::fs::write(format!("{dir}/{family:?}-{index}-{what}.py"), source).expect("dump dir writable");
                }
            }
            for (k, source) in [&case.program.source, &c.source].into_iter().enumerate() {
                lines[k] += source.lines().count();
                parse[k] += time(|| {
                    black_box(parser::parse(source, parser::Mode::Module.into()).unwrap());
                });
                total[k] += time(|| {
                    black_box(compiler::compile(source, Mode::Exec, "bench.py", CompileOpts::default()).unwrap());
                });
            }
        }
        for (k, what) in ["original", "converted"].iter().enumerate() {
            let us = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
            println!(
                "{family:?} {what:>9}: {:>4} lines, compile {:>7.1} us/program ({:.2} us/line): parse {:>6.1}, symtable+codegen {:>7.1}",
                lines[k] / n as usize,
                us(total[k]),
                us(total[k]) / (lines[k] as f64 / n as f64),
                us(parse[k]),
                us(total[k]) - us(parse[k]),
            );
        }
    }
}
