//! Reading a program file, with errors that name the file and the place.

use std::fmt;
use std::path::Path;

/// Bad input: exit code 2, the message names file (and line:col where there is one).
#[derive(Debug)]
pub struct InputError(pub String);

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// Reads `path` as UTF-8 Python source.
pub fn read_program(path: &Path) -> Result<String, InputError> {
    let bytes = std::fs::read(path).map_err(|e| InputError(format!("{}: cannot read file: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = valid.len() - valid.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        InputError(format!("{}:{line}:{col}: not valid UTF-8 (byte offset {})", path.display(), e.utf8_error().valid_up_to()))
    })
}

/// The message for a program the VM could not compile.
pub fn syntax_error(path: &Path, e: &stagecheck_executor::SyntaxError) -> InputError {
    InputError(format!("{}:{}:{}: syntax error: {}", path.display(), e.line, e.column, e.message))
}
