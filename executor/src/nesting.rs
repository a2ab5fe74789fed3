//! Parser and compiler nesting bounded: too deep a program, or an
//! `eval`/`exec`/`compile` argument, is a SyntaxError as in CPython, never a
//! native stack overflow.
//!
//! RustPython's parser recurses once per nested bracket: `eval('(' * 200000 +
//! ')' * 200000)` overflowed the worker's stack and aborted it.
//! CPython's tokenizer refuses more than 200 nested brackets ("too many
//! nested parentheses") and 100 indentation levels ("too many levels of
//! indentation"); [`check`] applies the same limits to the source text before
//! RustPython parses it, with a scan that skips comments and string literals
//! (inside f-strings, whose replacement fields are parsed too, brackets
//! count). Closing brackets never take the depth below zero, so unbalanced
//! text cannot hide an opening run.
//!
//! The parser also recurses once per prefix operator and per right-recursive
//! construct (`-` × 3,000,000 overflowed it); CPython's parser stops at
//! 6000 levels with a MemoryError. The same scan estimates those levels from
//! above, token by token ([`MAX_PARSER_DEPTH`]), and bounds the operators of
//! one expression ([`MAX_CHAIN`]). How deep the parsed tree may nest is the
//! vendored code generator's bound (RecursionError, as CPython's symbol
//! table raises it), exact because it counts the tree itself.
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
/// Parser levels at which CPython 3.11's parser gives up with a MemoryError
/// (`MAXSTACK` 6000, less what a statement costs before its expression):
/// measured, `eval('-' * 5976 + '1')` is the first that fails.
pub const MAX_PARSER_DEPTH: usize = 5976;
/// Parser levels one open bracket costs CPython (190 brackets and 2990
/// minuses exhaust it).
const BRACKET_LEVELS: usize = 16;
/// Infix operators and trailers in one expression past which the source is
/// refused before parsing. CPython refuses any expression nested past ~3000
/// (the vendored code generator does too, exactly); this only bounds what
/// the parser and the syntax tree's drop recurse through first, so it is a
/// hundred times looser: an expression with this many operators nests past
/// 3000 whatever their precedence.
pub const MAX_CHAIN: usize = 300_000;

/// What CPython raises for a source too deep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    SyntaxError,
    IndentationError,
    /// The parser's stack: CPython 3.11 raises MemoryError, with no message.
    MemoryError,
    /// Compilation's recursion: RecursionError.
    RecursionError,
}

/// Where a source is too deep: 1-based line and column, and CPython's
/// exception and message.
#[derive(Debug, PartialEq, Eq)]
pub struct TooDeep {
    pub line: u32,
    pub column: u32,
    pub refusal: Refusal,
    pub message: &'static str,
}

impl TooDeep {
    fn new(line: u32, column: u32, refusal: Refusal) -> TooDeep {
        let message = match refusal {
            Refusal::SyntaxError => "too many nested parentheses",
            Refusal::IndentationError => "too many levels of indentation",
            Refusal::MemoryError => "",
            Refusal::RecursionError => "maximum recursion depth exceeded during compilation",
        };
        TooDeep { line, column: column.max(1), refusal, message }
    }
}

/// One bracket level of the expression being scanned: how deep the parser
/// recurses in it.
#[derive(Clone, Copy, Default)]
struct Level {
    /// Right-recursive constructs still open (`**`, a conditional's `else`,
    /// `lambda`), weighted by the levels each costs CPython's parser.
    persist: usize,
    /// Prefix operators (`-`, `+`, `~`, `not`, `await`, `*`) since the last
    /// infix operator: the parser recurses once for each.
    run: usize,
    /// Infix operators and trailers since the last `,`, `=`, `;`.
    chain: usize,
}

/// An estimate of the parser's recursion, token by token, from above: the
/// parser recurses for prefix operators and right-associative constructs,
/// and loops over left-associative ones (whose depth the code generator
/// bounds).
struct Expression {
    levels: Vec<Level>,
    after_operand: bool,
}

impl Expression {
    fn new() -> Expression {
        Expression { levels: vec![Level::default()], after_operand: false }
    }

    fn top(&mut self) -> &mut Level {
        self.levels.last_mut().expect("the base level")
    }

    fn depth(&self) -> usize {
        self.levels.iter().map(|l| l.persist + l.run).sum::<usize>() + BRACKET_LEVELS * (self.levels.len() - 1)
    }

    fn check(&self) -> Result<(), Refusal> {
        if self.depth() >= MAX_PARSER_DEPTH {
            return Err(Refusal::MemoryError);
        }
        if self.levels.last().is_some_and(|l| l.chain > MAX_CHAIN) {
            return Err(Refusal::RecursionError);
        }
        Ok(())
    }

    fn operand(&mut self) {
        self.after_operand = true;
    }

    fn prefix(&mut self) -> Result<(), Refusal> {
        self.top().run += 1;
        self.after_operand = false;
        self.check()
    }

    /// `**`, `else`, `lambda`: the prefix operators before it stay open too.
    fn nest(&mut self, levels: usize) -> Result<(), Refusal> {
        let top = self.top();
        top.persist += top.run + levels;
        top.run = 0;
        self.after_operand = false;
        self.check()
    }

    fn infix(&mut self) -> Result<(), Refusal> {
        let top = self.top();
        top.run = 0;
        top.chain += 1;
        self.after_operand = false;
        self.check()
    }

    /// A comparison, `and`, `or`, `if`, `for`, `:`: flat in the tree.
    fn flat(&mut self) {
        self.top().run = 0;
        self.after_operand = false;
    }

    /// `,`, `=`, `;`: a new expression starts.
    fn separate(&mut self) {
        *self.top() = Level::default();
        self.after_operand = false;
    }

    fn open(&mut self) -> Result<(), Refusal> {
        if self.after_operand {
            self.top().chain += 1; // a call or subscript trailer
            self.check()?;
        }
        self.levels.push(Level::default());
        self.after_operand = false;
        self.check()
    }

    fn close(&mut self) {
        if self.levels.len() > 1 {
            self.levels.pop();
        }
        self.after_operand = true;
    }

    fn word(&mut self, word: &[u8]) -> Result<(), Refusal> {
        match word {
            b"not" | b"await" => self.prefix(),
            b"lambda" => self.nest(2),
            b"else" => self.nest(1),
            b"True" | b"False" | b"None" => {
                self.operand();
                Ok(())
            }
            _ if is_keyword(word) => {
                self.flat();
                Ok(())
            }
            _ => {
                self.operand();
                Ok(())
            }
        }
    }

    /// The operator at the start of `rest`; returns its length in bytes.
    fn operator(&mut self, rest: &[u8]) -> Result<usize, Refusal> {
        let at = |i: usize| rest.get(i).copied().unwrap_or(0);
        let c = rest[0];
        let doubled = at(1) == c && matches!(c, b'*' | b'/' | b'<' | b'>');
        let length = if doubled { 2 } else { 1 };
        if at(length) == b'=' {
            // `<=`, `>=`, `==`, `!=`, `:=` compare or bind inside an
            // expression; `-=`, `**=`, `>>=` ... are augmented assignments.
            if length == 1 && matches!(c, b'<' | b'>' | b'=' | b'!' | b':') {
                self.flat();
            } else {
                self.separate();
            }
            return Ok(length + 1);
        }
        match c {
            b'-' if at(1) == b'>' => {
                self.flat();
                return Ok(2);
            }
            b'-' | b'+' | b'~' | b'*' if !self.after_operand => self.prefix()?,
            b'~' => self.prefix()?,
            b'*' if doubled => self.nest(2)?,
            b'-' | b'+' | b'*' | b'/' | b'%' | b'@' | b'&' | b'|' | b'^' | b'.' => self.infix()?,
            b'<' | b'>' if doubled => self.infix()?,
            b'<' | b'>' | b'!' | b':' => self.flat(),
            b'=' | b',' | b';' => self.separate(),
            _ => {}
        }
        Ok(length)
    }
}

/// Python's keywords after which an expression starts (all but the three
/// constants, which are operands).
fn is_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"and"
            | b"as"
            | b"assert"
            | b"async"
            | b"break"
            | b"class"
            | b"continue"
            | b"def"
            | b"del"
            | b"elif"
            | b"except"
            | b"finally"
            | b"for"
            | b"from"
            | b"global"
            | b"if"
            | b"import"
            | b"in"
            | b"is"
            | b"nonlocal"
            | b"or"
            | b"pass"
            | b"raise"
            | b"return"
            | b"try"
            | b"while"
            | b"with"
            | b"yield"
    )
}

/// Checks bracket nesting, indentation depth and the parser's recursion
/// for `source`.
pub fn check(source: &str) -> Result<(), TooDeep> {
    let bytes = source.as_bytes();
    let (mut line, mut column) = (1u32, 0u32);
    let mut depth = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    let mut at_line_start = true;
    let mut expression = Expression::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if at_line_start && depth == 0 {
            // Indentation of a logical line (blank and comment lines do not count).
            expression = Expression::new();
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
                        return Err(TooDeep::new(line, column, Refusal::IndentationError));
                    }
                }
            }
            continue;
        }
        let refused = move |r: Refusal| TooDeep::new(line, column + 1, r);
        match c {
            b'\n' => {
                line += 1;
                column = 0;
                at_line_start = true;
                i += 1;
                continue;
            }
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => {
                // A continuation line: the same logical line.
                line += 1;
                column = 0;
                i += 2;
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
                expression.operand();
                continue;
            }
            b'(' | b'[' | b'{' => {
                bracket(c, &mut depth, line, column + 1)?;
                expression.open().map_err(refused)?;
            }
            b')' | b']' | b'}' => {
                bracket(c, &mut depth, line, column + 1)?;
                expression.close();
            }
            b'0'..=b'9' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'.')) {
                    i += 1;
                }
                column += (i - start) as u32;
                expression.operand();
                continue;
            }
            b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) && !expression.after_operand => {
                expression.operand(); // `.5`; its digits follow
            }
            _ if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => {
                let start = i;
                while i < bytes.len() && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric() || bytes[i] >= 0x80) {
                    i += 1;
                }
                column += (i - start) as u32;
                expression.word(&bytes[start..i]).map_err(refused)?;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' => {}
            _ => {
                let length = expression.operator(&bytes[i..]).map_err(refused)?;
                column += length as u32;
                i += length;
                continue;
            }
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
                return Err(TooDeep::new(line, column, Refusal::SyntaxError));
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
            let class = match deep.refusal {
                Refusal::MemoryError => return Err(vm.new_exception_empty(vm.ctx.exceptions.memory_error.to_owned())),
                Refusal::RecursionError => return Err(vm.new_recursion_error(deep.message)),
                Refusal::IndentationError => vm.ctx.exceptions.indentation_error,
                Refusal::SyntaxError => vm.ctx.exceptions.syntax_error,
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

    fn refusal(source: &str) -> Option<Refusal> {
        check(source).err().map(|deep| deep.refusal)
    }

    /// CPython 3.11's thresholds, measured with `compile(source, "s", "eval")`.
    #[test]
    fn the_parser_depth_of_prefix_and_right_recursive_runs() {
        for (token, memory_error_at) in [("-", 5976), ("not ", 5976), ("~", 5976), ("2**", 2988), ("lambda:", 2988), ("1 if 1 else ", 5976)]
        {
            let at = |n: usize| format!("x = {}1\n", token.repeat(n));
            assert_eq!(refusal(&at(memory_error_at - 1)), None, "{token:?}");
            assert_eq!(refusal(&at(memory_error_at)), Some(Refusal::MemoryError), "{token:?}");
        }
        // Brackets cost levels too: 190 of them and 2990 minuses exhaust it.
        assert_eq!(refusal(&format!("x = {}{}1{}", "(".repeat(190), "-".repeat(2990), ")".repeat(190))), Some(Refusal::MemoryError));
        // Where the operand ends, the prefix run does: binary minus, `and`, a comma.
        for flat in ["-1 - ", "not x and ", "-1, "] {
            assert_eq!(refusal(&format!("x = [{}1]\n", flat.repeat(20_000))), None, "{flat:?}");
        }
        // Separate lines, separate expressions.
        assert_eq!(refusal(&"x = ----1\n".repeat(5000)), None);
        // A continuation line does not start a new one.
        assert_eq!(refusal(&format!("x = {}\\\n{}1\n", "-".repeat(3000), "-".repeat(3000))), Some(Refusal::MemoryError));
        // Strings and comments do not count.
        assert_eq!(refusal(&format!("s = '{0}'  # {0}\n", "-".repeat(10_000))), None);
        // Augmented assignment separates; `**` unpacking and `->` do not nest.
        assert_eq!(refusal(&"x -= -1\n".repeat(10)), None);
    }

    #[test]
    fn an_expression_of_too_many_operators_is_a_recursion_error() {
        assert_eq!(refusal(&format!("x = {}1\n", "1 + ".repeat(MAX_CHAIN + 1))), Some(Refusal::RecursionError));
        assert_eq!(refusal(&format!("x = {}x\n", "x.".repeat(MAX_CHAIN + 1))), Some(Refusal::RecursionError));
        assert_eq!(refusal(&format!("x = f{}\n", "()".repeat(MAX_CHAIN + 1))), Some(Refusal::RecursionError));
        // Flat in the tree: comparisons, `and`, commas.
        assert_eq!(refusal(&format!("x = [1{}]\n", " < 1 and 1, 1".repeat(MAX_CHAIN))), None);
    }
}
