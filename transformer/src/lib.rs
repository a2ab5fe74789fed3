//! stagecheck's transformer: Python source → converted Python source and a
//! source map, by the rules of Snek (seed 000 §3) and AutoGraph (seed 001
//! §6, appendix D).
//!
//! Every function of the module (at any depth, methods included) is
//! converted by the passes of [`passes`], in their fixed order; module-level
//! statements stay as written. The converted module starts with
//! `__import__('stagecheck').ag.bind('ag__')`, which makes the runtime
//! operators (`staging/runtime/stagecheck/ag/`, one per converter) the
//! builtin `ag__`: converted code finds them with no name the program can
//! see in `globals()`, `dir()`, `vars()` or `locals()`. What cannot be
//! converted faithfully is refused with a [`ConversionError`]; the
//! transformer never panics on any input and never emits code that means
//! something else.
//!
//! Parsing and printing are ruff's (`ruff_python_parser`,
//! `ruff_python_codegen`); analyses are in [`analysis`], kept apart from
//! the rewrites. The transformer knows nothing of the VM.
//!
//! Ruff's 0.0.10 was chosen over rustpython-parser 0.4, which cannot print
//! statements (expressions only) and rejects 3.12 f-strings; ruff's crates
//! parse current Python, print whole modules, and are what RustPython itself
//! moved to. 0.0.10 is the last release that builds on rustc 1.95. The
//! printer is vendored (`transformer/vendor/ruff_python_codegen`, a path
//! dependency outside the workspace) with fixes for the trees 0.0.10 printed
//! wrong (floats cut short, tuples losing their parentheses, class patterns
//! left out, ...: its `PATCHES.md`).
//!
//! Known deviations, kept in the corpus as `expect: diverged` with their
//! reason: converted code uses more frames per call (recursion near the
//! limit), and a short-circuited operand of a nested `and`/`or` used as a
//! value is truth-tested twice.

pub mod analysis;
pub mod ast_build;
pub mod blocks;
pub mod context;
pub mod error;
pub mod locate;
pub mod namer;
pub mod passes;
pub mod planted;
pub mod scaffold;
pub mod syntax;
pub mod unparse;

pub use error::ConversionError;
pub use unparse::SourceMap;

use ruff_python_ast::Stmt;
use ruff_source_file::LineIndex;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A converted module.
#[derive(Clone, Debug)]
pub struct Conversion {
    pub source: String,
    pub map: SourceMap,
    /// The builtin name the runtime operators are bound to (`ag__` unless
    /// the program uses it); not a global of the converted module.
    pub runtime_name: String,
}

/// Converts `source` (named `path` in errors), trusting the printer
/// ([`unparse::Verify::Printer`]): what `check` and the fuzzer use, since
/// they run the printed code against the original anyway.
pub fn convert(source: &str, path: &str) -> Result<Conversion, ConversionError> {
    convert_with(source, path, unparse::Verify::Printer)
}

/// Converts `source`, then parses the printed code again and refuses it
/// unless its tree is the converted one ([`unparse::Verify::Tree`]): what
/// `stagecheck convert` prints, for code that leaves the tool.
pub fn convert_verified(source: &str, path: &str) -> Result<Conversion, ConversionError> {
    convert_with(source, path, unparse::Verify::Tree)
}

fn convert_with(source: &str, path: &str, verify: unparse::Verify) -> Result<Conversion, ConversionError> {
    // The passes are written not to panic; a panic is the converter's bug,
    // reported as an error of construct `error::INTERNAL` (which callers
    // treat as a crash finding, never as a refusal) rather than ending the
    // caller, at the line of the function whose passes panicked (else 1).
    passes::reset_converting();
    match catch_unwind(AssertUnwindSafe(|| convert_inner(source, path, verify))) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let line = passes::converting().map_or(1, |at| LineIndex::from_source_text(source).line_index(at).get());
            Err(ConversionError {
                file: path.to_string(),
                line: line as u32,
                construct: error::INTERNAL.into(),
                reason: format!("the converter failed: {msg}"),
            })
        }
    }
}

fn convert_inner(source: &str, path: &str, verify: unparse::Verify) -> Result<Conversion, ConversionError> {
    let lines = LineIndex::from_source_text(source);
    let error = |offset, construct: &str, reason: String| ConversionError {
        file: path.to_string(),
        line: lines.line_index(offset).get() as u32,
        construct: construct.to_string(),
        reason,
    };
    let parsed = ruff_python_parser::parse_module(source).map_err(|e| error(e.location.start(), "syntax", e.error.to_string()))?;
    let mut body: Vec<Stmt> = parsed.into_suite().into_iter().collect();
    let mut namer = namer::Namer::new(&body);
    let ag = namer.new_name("ag__");
    passes::convert_scope_body(&mut body, false, &mut namer, &ag).map_err(|r| error(r.offset, r.construct, r.reason))?;
    // The scaffolding's marks hold only the converter's lambdas (`scaffold`).
    scaffold::unmark_program_lambdas(&mut body, &ag);
    // The runtime becomes a builtin named `ag`, not a global: the program's
    // `globals()`, `dir()`, `vars()` and `locals()` stay the original's.
    let header = ast_build::stmt(
        "__import__('stagecheck').ag.bind(NAME)",
        Default::default(),
        vec![("NAME", ast_build::Sub::Expr(ast_build::string(&ag)))],
    );
    body.insert(header_position(&body), header);
    // ruff's printer has limits of its own; refuse rather than emit what
    // they break (at the construct it could not print: `locate`).
    let (text, map) = unparse::print(source, &body, verify).map_err(|r| error(r.offset, r.construct, r.reason))?;
    Ok(Conversion { source: text, map, runtime_name: ag })
}

/// After the module docstring and `from __future__` imports.
fn header_position(body: &[Stmt]) -> usize {
    let mut i = 0;
    if let Some(Stmt::Expr(e)) = body.first() {
        if e.value.is_string_literal_expr() {
            i = 1;
        }
    }
    while let Some(Stmt::ImportFrom(f)) = body.get(i) {
        if f.module.as_deref() != Some("__future__") {
            break;
        }
        i += 1;
    }
    i
}
