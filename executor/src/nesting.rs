//! Parser and compiler nesting bounded: too deep a program, or an
//! `eval`/`exec`/`compile` argument, is a SyntaxError as in CPython, never a
//! native stack overflow.
//!
//! RustPython's parser recurses once per nested bracket: `eval('(' * 200000 +
//! ')' * 200000)` overflowed the worker's stack and aborted it (issue 24).
//! CPython's tokenizer refuses more than 200 nested brackets ("too many
//! nested parentheses") and 100 indentation levels ("too many levels of
//! indentation"); [`check`] applies the same limits to the source text before
//! RustPython parses it, with a scan that skips comments and string literals
//! (inside f-strings, whose replacement fields are parsed too, brackets
//! count). Closing brackets never take the depth below zero, so unbalanced
//! text cannot hide an opening run.
//!
//! [`install`] wraps the builtins `compile`, `exec` and `eval`: a str or
//! bytes source is checked first, then the original is called. Programs
//! themselves are checked by [`crate::Executor::run`].

use rustpython_vm::{
    builtins::{PyBytes, PyStr},
    function::FuncArgs,
    AsObject, PyObjectRef, PyResult, VirtualMachine,
};
use std::cell::RefCell;

/// Nested brackets CPython's tokenizer accepts (`MAXLEVEL`).
pub const MAX_BRACKETS: usize = 200;
/// Indentation levels CPython's tokenizer accepts (`MAXINDENT`).
pub const MAX_INDENT: usize = 100;

/// Where a source is too deep: 1-based line and column, and CPython's message.
#[derive(Debug, PartialEq, Eq)]
pub struct TooDeep {
    pub line: u32,
    pub column: u32,
    pub message: &'static str,
}

/// Checks bracket nesting and indentation depth of `source`.
pub fn check(source: &str) -> Result<(), TooDeep> {
    let bytes = source.as_bytes();
    let (mut line, mut column) = (1u32, 0u32);
    let mut depth = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    let mut at_line_start = true;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if at_line_start && depth == 0 {
            // Indentation of a logical line (blank and comment lines do not count).
            let start = i;
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            let width = i - start;
            column += width as u32;
            at_line_start = false;
            if i < bytes.len() && !matches!(bytes[i], b'\n' | b'\r' | b'#') {
                while indents.last().is_some_and(|&w| w > width) {
                    indents.pop();
                }
                if width > indents.last().copied().unwrap_or(0) {
                    indents.push(width);
                    if indents.len() > MAX_INDENT {
                        return Err(TooDeep { line, column: column.max(1), message: "too many levels of indentation" });
                    }
                }
            }
            continue;
        }
        match c {
            b'\n' => {
                line += 1;
                column = 0;
                at_line_start = true;
                i += 1;
                continue;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                let f = is_f_prefix(bytes, i);
                let triple = i + 2 < bytes.len() && bytes[i + 1] == c && bytes[i + 2] == c;
                let quote_len = if triple { 3 } else { 1 };
                i += quote_len;
                column += quote_len as u32;
                while i < bytes.len() {
                    let d = bytes[i];
                    if d == b'\\' {
                        i += 2;
                        column += 2;
                        continue;
                    }
                    if d == b'\n' {
                        line += 1;
                        column = 0;
                        if !triple {
                            break;
                        }
                    } else {
                        column += 1;
                    }
                    if d == c && (!triple || (i + 2 < bytes.len() && bytes[i + 1] == c && bytes[i + 2] == c)) {
                        i += quote_len;
                        column += quote_len as u32 - 1;
                        break;
                    }
                    if f {
                        bracket(d, &mut depth, line, column)?;
                    }
                    i += 1;
                }
                continue;
            }
            _ => bracket(c, &mut depth, line, column + 1)?,
        }
        column += 1;
        i += 1;
    }
    Ok(())
}

fn bracket(c: u8, depth: &mut usize, line: u32, column: u32) -> Result<(), TooDeep> {
    match c {
        b'(' | b'[' | b'{' => {
            *depth += 1;
            if *depth > MAX_BRACKETS {
                return Err(TooDeep { line, column, message: "too many nested parentheses" });
            }
        }
        b')' | b']' | b'}' => *depth = depth.saturating_sub(1),
        _ => {}
    }
    Ok(())
}

/// Whether the string literal whose quote is at `quote` has an f or t prefix.
fn is_f_prefix(bytes: &[u8], quote: usize) -> bool {
    let mut j = quote;
    while j > 0 && bytes[j - 1].is_ascii_alphabetic() && quote - j < 3 {
        j -= 1;
        if matches!(bytes[j], b'f' | b'F' | b't' | b'T') {
            return true;
        }
    }
    false
}

thread_local! {
    /// The interpreter's own `compile`, `exec`, `eval` (set by [`install`]).
    static ORIGINALS: RefCell<Vec<PyObjectRef>> = const { RefCell::new(Vec::new()) };
}

const WRAPPED: [&str; 3] = ["compile", "exec", "eval"];

/// Replaces `compile`, `exec` and `eval` in builtins by checking wrappers.
pub fn install(vm: &VirtualMachine) {
    let builtins = vm.builtins.dict();
    let originals: Vec<PyObjectRef> = WRAPPED.iter().filter_map(|name| builtins.get_item(*name, vm).ok()).collect();
    if originals.len() != WRAPPED.len() {
        return;
    }
    ORIGINALS.with(|o| *o.borrow_mut() = originals);
    for (i, name) in WRAPPED.iter().enumerate() {
        let wrapper = vm.new_function(name, move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            if let Some(source) = args.args.first() {
                // compile's second argument names the file; exec/eval: '<string>'.
                let filename = if i == 0 { args.args.get(1).cloned() } else { None };
                check_object(source, filename.unwrap_or_else(|| vm.ctx.new_str("<string>").into()), vm)?;
            }
            let original = ORIGINALS.with(|o| o.borrow()[i].clone());
            original.call(args, vm)
        });
        let _ = builtins.set_item(*name, wrapper.into(), vm);
    }
}

/// A SyntaxError (IndentationError) if `source` is text too deep to parse.
fn check_object(source: &PyObjectRef, filename: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
    let text = if let Some(s) = source.downcast_ref::<PyStr>() {
        s.to_string_lossy().into_owned()
    } else if let Some(b) = source.downcast_ref::<PyBytes>() {
        String::from_utf8_lossy(b.as_bytes()).into_owned()
    } else {
        return Ok(());
    };
    match check(&text) {
        Ok(()) => Ok(()),
        Err(deep) => {
            let class = if deep.message.contains("indentation") {
                vm.ctx.exceptions.indentation_error
            } else {
                vm.ctx.exceptions.syntax_error
            };
            let exc = vm.new_exception_msg(class.to_owned(), deep.message.into());
            let _ = exc.as_object().set_attr("lineno", vm.ctx.new_int(deep.line), vm);
            let _ = exc.as_object().set_attr("offset", vm.ctx.new_int(deep.column), vm);
            let _ = exc.as_object().set_attr("filename", filename, vm);
            Err(exc)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_what_does_not_count() {
        assert!(check(&format!("x = {}1{}", "(".repeat(200), ")".repeat(200))).is_ok());
        let deep = check(&format!("x = {}1{}", "(".repeat(201), ")".repeat(201))).unwrap_err();
        assert_eq!((deep.line, deep.column, deep.message), (1, 205, "too many nested parentheses"));
        // Brackets in strings and comments do not count; in f-strings they do.
        assert!(check(&format!("s = '{0}'\nt = \"\"\"{0}\n{0}\"\"\"  # {0}\n", "(".repeat(300))).is_ok());
        assert!(check(&format!("s = f'{{{}1{}}}'", "(".repeat(300), ")".repeat(300))).is_err());
        // Closers first cannot hide the openers.
        assert!(check(&format!("s = {}\nx = {}", ")".repeat(500), "(".repeat(300))).is_err());
        let mut program = String::new();
        for level in 0..=100 {
            program.push_str(&format!("{}if x:\n", " ".repeat(level)));
        }
        program.push_str(&format!("{}pass\n", " ".repeat(101)));
        assert_eq!(check(&program).unwrap_err().message, "too many levels of indentation");
        let lines: Vec<String> = (0..100).map(|level| format!("{}if x:", " ".repeat(level))).collect();
        assert!(check(&format!("{}\n{}pass\n", lines.join("\n"), " ".repeat(100))).is_ok());
    }
}
