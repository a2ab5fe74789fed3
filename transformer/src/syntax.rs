//! The parser and printer the conversion uses, for tools that rewrite
//! programs themselves (the reducer, `src/reduce/`): one parser and one
//! printer for the whole project, so what the reducer prints reads back as
//! the converter will read it.

pub use crate::unparse::unparse;
pub use ruff_python_ast as ast;

/// `body` printed with each literal that still has its range in `source`
/// (the text `body` was parsed from) copied as written
/// (`unparse::printed_from`): a candidate the reducer prints keeps a literal
/// the printer would normalise (a lone surrogate, which a parsed string
/// holds as U+FFFD), so a finding that lives in such a literal can shrink.
pub fn unparse_from(source: &str, body: &[ast::Stmt]) -> String {
    crate::unparse::printed_from(source, body).source
}

/// Parses a module; `Err` is the parser's message.
pub fn parse(source: &str) -> Result<ast::Suite, String> {
    ruff_python_parser::parse_module(source).map(|p| p.into_suite()).map_err(|e| e.error.to_string())
}

/// Parses one expression (`"0"`, `"None"`); `Err` is the parser's message.
pub fn parse_expr(source: &str) -> Result<ast::Expr, String> {
    ruff_python_parser::parse_expression(source).map(|p| p.into_expr()).map_err(|e| e.error.to_string())
}
