//! Compiles every file named on stdin with RustPython's compiler and prints
//! one line per file: a digest of the whole code object (CPython's marshal
//! format: bytecode, constants with nested code, names, line and exception
//! tables) and one of every nested code object's column locations, or the
//! compile error. scripts/codegen-diff runs it against the published and the
//! patched code generator and compares the lines. With `TIME` set, prints
//! instead the mean compile time of the files (three passes); with `DIS`,
//! the disassembly of each file's code objects.
use rustpython_compiler::{compile, CompileOpts, Mode};
use rustpython_compiler_core::{
    bytecode::{CodeObject, ConstantData},
    marshal,
};
use std::io::BufRead;

fn locations(code: &CodeObject, out: &mut String) {
    out.push_str(&format!("{:?}|{:?}|", code.locations, code.qualname));
    for c in code.constants.iter() {
        if let ConstantData::Code { code } = c {
            locations(code, out);
        }
    }
}

fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

fn main() {
    let paths: Vec<String> = std::io::stdin().lock().lines().map(|l| l.expect("stdin")).collect();
    let sources: Vec<String> = paths.iter().map(|p| std::fs::read_to_string(p).expect("readable file")).collect();
    if std::env::var_os("TIME").is_some() {
        let started = std::time::Instant::now();
        for _ in 0..3 {
            for source in &sources {
                let _ = compile(source, Mode::Exec, "timed.py", CompileOpts::default());
            }
        }
        println!("{:.1} us per file", started.elapsed().as_secs_f64() * 1e6 / (3 * sources.len()) as f64);
        return;
    }
    let disassemble = std::env::var_os("DIS").is_some();
    for (path, source) in paths.iter().zip(&sources) {
        match compile(source, Mode::Exec, path, CompileOpts::default()) {
            Ok(code) if disassemble => {
                let mut bytes = Vec::new();
                marshal::serialize_code(&mut bytes, &code);
                println!("{path}\n{}\n{bytes:?}", code.display_expand_code_objects());
            }
            Ok(code) => {
                let mut bytes = Vec::new();
                marshal::serialize_code(&mut bytes, &code);
                let mut columns = String::new();
                locations(&code, &mut columns);
                println!("{path} ok {:016x} {:016x} {}", digest(&bytes), digest(columns.as_bytes()), bytes.len());
            }
            Err(e) => println!("{path} error {e}"),
        }
    }
}
