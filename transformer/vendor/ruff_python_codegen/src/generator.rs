//! Generate Python source code from an abstract syntax tree (AST).

use std::fmt::Write;
use std::ops::Deref;

use ruff_python_ast::str::Quote;
use ruff_python_ast::{
    self as ast, Alias, AnyStringFlags, ArgOrKeyword, BoolOp, BytesLiteralFlags, CmpOp,
    Comprehension, ConversionFlag, DebugText, ExceptHandler, Expr, Identifier, MatchCase, Operator,
    Parameter, Parameters, Pattern, Singleton, Stmt, StringFlags, Suite, TypeParam,
    TypeParamParamSpec, TypeParamTypeVar, TypeParamTypeVarTuple, WithItem,
};
use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::{ParameterWithDefault, TypeParams};
use ruff_python_literal::escape::{AsciiEscape, Escape, UnicodeEscape};
use ruff_source_file::LineEnding;
use ruff_text_size::{Ranged, TextRange};

/// stagecheck: a statement printed by [`Generator::stmt_printed`].
pub struct Printed {
    pub source: String,
    /// Each statement's range in the tree and its start in `source`.
    pub starts: Vec<(TextRange, usize)>,
    /// Whether an f-string or t-string was printed.
    pub interpolated: bool,
}

use super::stylist::{Indentation, Stylist};

mod precedence {
    pub(crate) const MIN: u8 = 0;
    pub(crate) const NAMED_EXPR: u8 = 1;
    pub(crate) const ASSIGN: u8 = 3;
    pub(crate) const ANN_ASSIGN: u8 = 5;
    pub(crate) const AUG_ASSIGN: u8 = 5;
    pub(crate) const EXPR: u8 = 5;
    pub(crate) const YIELD: u8 = 7;
    pub(crate) const YIELD_FROM: u8 = 7;
    pub(crate) const FOR: u8 = 9;
    pub(crate) const RETURN: u8 = 11;
    pub(crate) const SUBSCRIPT: u8 = 13;
    pub(crate) const COMPREHENSION_TARGET: u8 = 19;
    pub(crate) const TUPLE: u8 = 19;
    pub(crate) const FORMATTED_VALUE: u8 = 19;
    pub(crate) const COMMA: u8 = 21;
    pub(crate) const ASSERT: u8 = 23;
    pub(crate) const COMPREHENSION_ELEMENT: u8 = 27;
    pub(crate) const LAMBDA: u8 = 27;
    pub(crate) const IF_EXP: u8 = 27;
    pub(crate) const COMPREHENSION: u8 = 29;
    pub(crate) const OR: u8 = 31;
    pub(crate) const AND: u8 = 33;
    pub(crate) const NOT: u8 = 35;
    pub(crate) const CMP: u8 = 37;
    pub(crate) const BIT_OR: u8 = 39;
    pub(crate) const BIT_XOR: u8 = 41;
    pub(crate) const BIT_AND: u8 = 43;
    pub(crate) const LSHIFT: u8 = 45;
    pub(crate) const RSHIFT: u8 = 45;
    pub(crate) const ADD: u8 = 47;
    pub(crate) const SUB: u8 = 47;
    pub(crate) const MULT: u8 = 49;
    pub(crate) const DIV: u8 = 49;
    pub(crate) const MOD: u8 = 49;
    pub(crate) const FLOORDIV: u8 = 49;
    pub(crate) const MAT_MULT: u8 = 49;
    pub(crate) const INVERT: u8 = 53;
    pub(crate) const UADD: u8 = 53;
    pub(crate) const USUB: u8 = 53;
    pub(crate) const POW: u8 = 55;
    pub(crate) const AWAIT: u8 = 57;
    pub(crate) const MAX: u8 = 63;
}

#[derive(Default)]
pub enum Mode {
    /// Ruff's default unparsing behaviour.
    #[default]
    Default,
    /// Emits same output as [`ast.unparse`](https://docs.python.org/3/library/ast.html#ast.unparse).
    AstUnparse,
}

impl Mode {
    /// Quote style to use.
    ///
    /// - [`Default`](`Mode::Default`): Output of `[AnyStringFlags.quote_style`].
    /// - [`AstUnparse`](`Mode::AstUnparse`): Always return [`Quote::Single`].
    #[must_use]
    fn quote_style(&self, flags: impl StringFlags) -> Quote {
        match self {
            Self::Default => flags.quote_style(),
            Self::AstUnparse => Quote::Single,
        }
    }
}

pub struct Generator<'a> {
    /// The indentation style to use.
    indent: &'a Indentation,
    /// The line ending to use.
    line_ending: LineEnding,
    /// Unparsed code style. See [`Mode`] for more info.
    mode: Mode,
    buffer: String,
    indent_depth: usize,
    num_newlines: usize,
    initial: bool,
    /// stagecheck: where each statement starts in `buffer` (preorder), when
    /// asked for with [`Generator::with_starts`]; the statement waiting for
    /// its first character is `pending`.
    starts: Option<Vec<(TextRange, usize)>>,
    pending: Option<TextRange>,
    /// stagecheck: whether an f-string or t-string was printed.
    printed_interpolated: bool,
    /// stagecheck: the source the tree's ranges refer to, when given with
    /// [`Generator::with_source`]: a literal with a non-empty range is printed as
    /// its original text (see [`Generator::p_original`]).
    source: Option<&'a str>,
}

impl<'a> From<&'a Stylist<'a>> for Generator<'a> {
    fn from(stylist: &'a Stylist<'a>) -> Self {
        Self {
            indent: stylist.indentation(),
            line_ending: stylist.line_ending(),
            mode: Mode::default(),
            buffer: String::new(),
            indent_depth: 0,
            num_newlines: 0,
            initial: true,
            starts: None,
            pending: None,
            printed_interpolated: false,
            source: None,
        }
    }
}

impl<'a> Generator<'a> {
    pub const fn new(indent: &'a Indentation, line_ending: LineEnding) -> Self {
        Self {
            // Style preferences.
            indent,
            line_ending,
            mode: Mode::Default,
            // Internal state.
            buffer: String::new(),
            indent_depth: 0,
            num_newlines: 0,
            initial: true,
            starts: None,
            pending: None,
            printed_interpolated: false,
            source: None,
        }
    }

    /// Sets the mode for code unparsing.
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// stagecheck: literals whose range is not empty are printed as their text in
    /// `source` (the source the tree was parsed from), so that their value survives:
    /// a parsed string holds a lone surrogate (`"\ud800"`) as U+FFFD, which printing
    /// the value would write. Generated nodes have empty ranges and are printed from
    /// their values.
    #[must_use]
    pub fn with_source(mut self, source: &'a str) -> Self {
        self.source = Some(source);
        self
    }

    /// stagecheck: records where each statement starts (see [`Printed`]).
    #[must_use]
    pub fn with_starts(mut self) -> Self {
        self.starts = Some(Vec::new());
        self
    }

    /// stagecheck: a statement's source code, where each statement in it
    /// (nested ones included, in preorder) starts, and whether it printed
    /// an f-string or t-string.
    pub fn stmt_printed(mut self, stmt: &Stmt) -> Printed {
        if self.starts.is_none() {
            self.starts = Some(Vec::new());
        }
        self.unparse_stmt(stmt);
        Printed {
            starts: self.starts.take().unwrap_or_default(),
            interpolated: self.printed_interpolated,
            source: self.buffer,
        }
    }

    /// Generate source code from a [`Stmt`].
    pub fn stmt(mut self, stmt: &Stmt) -> String {
        self.unparse_stmt(stmt);
        self.generate()
    }

    /// Generate source code from an [`Expr`].
    pub fn expr(mut self, expr: &Expr) -> String {
        self.unparse_expr(expr, 0);
        self.generate()
    }

    fn newline(&mut self) {
        if !self.initial {
            self.num_newlines = std::cmp::max(self.num_newlines, 1);
        }
    }

    fn newlines(&mut self, extra: usize) {
        if !self.initial {
            self.num_newlines = std::cmp::max(self.num_newlines, 1 + extra);
        }
    }

    fn body(&mut self, stmts: &[Stmt]) {
        self.indent_depth = self.indent_depth.saturating_add(1);
        for stmt in stmts {
            self.unparse_stmt(stmt);
        }
        self.indent_depth = self.indent_depth.saturating_sub(1);
    }

    fn p(&mut self, s: &str) {
        if self.num_newlines > 0 {
            for _ in 0..self.num_newlines {
                self.buffer += &self.line_ending;
            }
            self.num_newlines = 0;
        }
        if let Some(range) = self.pending.take() {
            if let Some(starts) = &mut self.starts {
                // A statement's first text is its indentation.
                let indent = s.len() - s.trim_start_matches(' ').len();
                starts.push((range, self.buffer.len() + indent));
            }
        }
        self.buffer += s;
    }

    fn p_id(&mut self, s: &Identifier) {
        self.p(s.as_str());
    }

    fn p_bytes_repr(&mut self, s: &[u8], flags: BytesLiteralFlags) {
        // raw bytes are interpreted without escapes and should all be ascii (it's a python syntax
        // error otherwise), but if this assumption is violated, a `Utf8Error` will be returned from
        // `p_raw_bytes`, and we should fall back on the normal escaping behavior instead of
        // panicking
        if flags.prefix().is_raw() {
            if let Ok(s) = std::str::from_utf8(s) {
                write!(self.buffer, "{}", flags.display_contents(s))
                    .expect("Writing to a String buffer should never fail");
                return;
            }
        }
        let quote_style = self.mode.quote_style(flags);
        let escape = AsciiEscape::with_preferred_quote(s, quote_style);
        if let Some(len) = escape.layout().len {
            self.buffer.reserve(len);
        }
        escape
            .bytes_repr(flags.triple_quotes())
            .write(&mut self.buffer)
            .expect("Writing to a String buffer should never fail");
    }

    fn p_str_repr(&mut self, s: &str, flags: impl Into<AnyStringFlags>) {
        let flags = flags.into();
        if flags.prefix().is_raw() {
            write!(self.buffer, "{}", flags.display_contents(s))
                .expect("Writing to a String buffer should never fail");
            return;
        }
        self.p(flags.prefix().as_str());

        let quote_style = self.mode.quote_style(flags);
        let escape = UnicodeEscape::with_preferred_quote(s, quote_style);
        if let Some(len) = escape.layout().len {
            self.buffer.reserve(len);
        }
        escape
            .str_repr(flags.triple_quotes())
            .write(&mut self.buffer)
            .expect("Writing to a String buffer should never fail");
    }

    /// stagecheck: the source text of a user's node (non-empty `range` inside the
    /// source given with [`Generator::with_source`]).
    fn original_text(&self, range: TextRange) -> Option<&'a str> {
        let source = self.source?;
        if range.is_empty() {
            return None;
        }
        source.get(usize::from(range.start())..usize::from(range.end()))
    }

    /// stagecheck: prints the original text of the literal at `range` when it parses
    /// (alone, as an expression) to a tree `same` accepts: the node's value, as far
    /// as the parsed tree can tell (lone surrogates aside, which is why the text is
    /// copied). A node whose range does not hold its text (a tree built or rewritten
    /// with a user's range) is printed from its value. Returns whether it printed.
    fn p_original(&mut self, range: TextRange, same: impl FnOnce(&Expr) -> bool) -> bool {
        let Some(text) = self.original_text(range) else {
            return false;
        };
        let Ok(parsed) = ruff_python_parser::parse_expression(text) else {
            return false;
        };
        if !same(parsed.expr()) {
            return false;
        }
        self.p(text);
        true
    }

    /// stagecheck: prints the original text of a literal element of an f-string or
    /// t-string printed with `flags` (its own: the text is written for them) when
    /// that text, alone in such a string, reads back as the element's value.
    fn p_original_element(
        &mut self,
        element: &ast::InterpolatedStringLiteralElement,
        flags: AnyStringFlags,
    ) -> bool {
        let Some(text) = self.original_text(element.range) else {
            return false;
        };
        let quote = flags.quote_str();
        let wrapped = format!("{}{quote}{text}{quote}", flags.prefix().as_str());
        let Ok(parsed) = ruff_python_parser::parse_expression(&wrapped) else {
            return false;
        };
        let elements = match parsed.expr() {
            Expr::FString(ast::ExprFString { value, .. }) => match value.as_slice() {
                [ast::FStringPart::FString(f)] => &f.elements,
                _ => return false,
            },
            Expr::TString(ast::ExprTString { value, .. }) => match value.as_slice() {
                [t] => &t.elements,
                _ => return false,
            },
            _ => return false,
        };
        match elements.as_ref() {
            [ast::InterpolatedStringElement::Literal(l)] if l.value == element.value => {
                self.p(text);
                true
            }
            _ => false,
        }
    }

    fn p_if(&mut self, cond: bool, s: &str) {
        if cond {
            self.p(s);
        }
    }

    fn p_delim(&mut self, first: &mut bool, s: &str) {
        self.p_if(!std::mem::take(first), s);
    }

    pub(crate) fn generate(self) -> String {
        self.buffer
    }

    pub fn unparse_suite(&mut self, suite: &Suite) {
        for stmt in suite {
            self.unparse_stmt(stmt);
        }
    }

    fn unparse_stmt(&mut self, ast: &Stmt) {
        if self.starts.is_some() {
            self.pending = Some(ast.range());
        }
        macro_rules! statement {
            ($body:block) => {{
                self.newline();
                self.p(&self.indent.deref().repeat(self.indent_depth));
                $body
                self.initial = false;
            }};
        }

        match ast {
            Stmt::FunctionDef(ast::StmtFunctionDef {
                is_async,
                name,
                parameters,
                body,
                returns,
                decorator_list,
                type_params,
                ..
            }) => {
                self.newlines(if self.indent_depth == 0 { 2 } else { 1 });
                for decorator in decorator_list {
                    statement!({
                        self.p("@");
                        self.unparse_expr(&decorator.expression, precedence::MAX);
                    });
                }
                statement!({
                    if *is_async {
                        self.p("async ");
                    }
                    self.p("def ");
                    self.p_id(name);
                    if let Some(type_params) = type_params {
                        self.unparse_type_params(type_params);
                    }
                    self.p("(");
                    self.unparse_parameters(parameters);
                    self.p(")");
                    if let Some(returns) = returns {
                        self.p(" -> ");
                        self.unparse_expr(returns, precedence::MAX);
                    }
                    self.p(":");
                });
                self.body(body);
                if self.indent_depth == 0 {
                    self.newlines(2);
                }
            }
            Stmt::ClassDef(ast::StmtClassDef {
                name,
                arguments,
                body,
                decorator_list,
                type_params,
                range: _,
                node_index: _,
            }) => {
                self.newlines(if self.indent_depth == 0 { 2 } else { 1 });
                for decorator in decorator_list {
                    statement!({
                        self.p("@");
                        self.unparse_expr(&decorator.expression, precedence::MAX);
                    });
                }
                statement!({
                    self.p("class ");
                    self.p_id(name);
                    if let Some(type_params) = type_params {
                        self.unparse_type_params(type_params);
                    }
                    if let Some(arguments) = arguments {
                        self.p("(");
                        let mut first = true;
                        for arg_or_keyword in arguments.iter_source_order() {
                            match arg_or_keyword {
                                ArgOrKeyword::Arg(arg) => {
                                    self.p_delim(&mut first, ", ");
                                    self.unparse_expr(arg, precedence::MAX);
                                }
                                ArgOrKeyword::Keyword(keyword) => {
                                    self.p_delim(&mut first, ", ");
                                    if let Some(arg) = &keyword.arg {
                                        self.p_id(arg);
                                        self.p("=");
                                    } else {
                                        self.p("**");
                                    }
                                    self.unparse_expr(&keyword.value, precedence::MAX);
                                }
                            }
                        }
                        self.p(")");
                    }
                    self.p(":");
                });
                self.body(body);
                if self.indent_depth == 0 {
                    self.newlines(2);
                }
            }
            Stmt::Return(ast::StmtReturn {
                value,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    if let Some(expr) = value {
                        self.p("return ");
                        self.unparse_expr(expr, precedence::RETURN);
                    } else {
                        self.p("return");
                    }
                });
            }
            Stmt::Delete(ast::StmtDelete {
                targets,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.p("del ");
                    let mut first = true;
                    for expr in targets {
                        self.p_delim(&mut first, ", ");
                        self.unparse_expr(expr, precedence::COMMA);
                    }
                });
            }
            Stmt::Assign(ast::StmtAssign { targets, value, .. }) => {
                statement!({
                    for target in targets {
                        self.unparse_expr(target, precedence::ASSIGN);
                        self.p(" = ");
                    }
                    self.unparse_expr(value, precedence::ASSIGN);
                });
            }
            Stmt::AugAssign(ast::StmtAugAssign {
                target,
                op,
                value,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.unparse_expr(target, precedence::AUG_ASSIGN);
                    self.p(" ");
                    self.p(match op {
                        Operator::Add => "+",
                        Operator::Sub => "-",
                        Operator::Mult => "*",
                        Operator::MatMult => "@",
                        Operator::Div => "/",
                        Operator::Mod => "%",
                        Operator::Pow => "**",
                        Operator::LShift => "<<",
                        Operator::RShift => ">>",
                        Operator::BitOr => "|",
                        Operator::BitXor => "^",
                        Operator::BitAnd => "&",
                        Operator::FloorDiv => "//",
                    });
                    self.p("= ");
                    self.unparse_expr(value, precedence::AUG_ASSIGN);
                });
            }
            Stmt::AnnAssign(ast::StmtAnnAssign {
                target,
                annotation,
                value,
                simple,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    let need_parens = matches!(target.as_ref(), Expr::Name(_)) && !simple;
                    self.p_if(need_parens, "(");
                    self.unparse_expr(target, precedence::ANN_ASSIGN);
                    self.p_if(need_parens, ")");
                    self.p(": ");
                    self.unparse_expr(annotation, precedence::COMMA);
                    if let Some(value) = value {
                        self.p(" = ");
                        self.unparse_expr(value, precedence::COMMA);
                    }
                });
            }
            Stmt::For(ast::StmtFor {
                is_async,
                target,
                iter,
                body,
                orelse,
                ..
            }) => {
                statement!({
                    if *is_async {
                        self.p("async ");
                    }
                    self.p("for ");
                    self.unparse_expr(target, precedence::FOR);
                    self.p(" in ");
                    self.unparse_expr(iter, precedence::MAX);
                    self.p(":");
                });
                self.body(body);
                if !orelse.is_empty() {
                    statement!({
                        self.p("else:");
                    });
                    self.body(orelse);
                }
            }
            Stmt::While(ast::StmtWhile {
                test,
                body,
                orelse,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.p("while ");
                    // stagecheck: COMMA, not WHILE (below TUPLE): `while (a, b):`.
                    self.unparse_expr(test, precedence::COMMA);
                    self.p(":");
                });
                self.body(body);
                if !orelse.is_empty() {
                    statement!({
                        self.p("else:");
                    });
                    self.body(orelse);
                }
            }
            Stmt::If(ast::StmtIf {
                test,
                body,
                elif_else_clauses,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.p("if ");
                    // stagecheck: COMMA, not IF (below TUPLE): `if (a, b):`.
                    self.unparse_expr(test, precedence::COMMA);
                    self.p(":");
                });
                self.body(body);

                for clause in elif_else_clauses {
                    if let Some(test) = &clause.test {
                        statement!({
                            self.p("elif ");
                            self.unparse_expr(test, precedence::COMMA);
                            self.p(":");
                        });
                    } else {
                        statement!({
                            self.p("else:");
                        });
                    }
                    self.body(&clause.body);
                }
            }
            Stmt::With(ast::StmtWith {
                is_async,
                items,
                body,
                ..
            }) => {
                statement!({
                    if *is_async {
                        self.p("async ");
                    }
                    self.p("with ");
                    // stagecheck: `with ((a, b)):`, a tuple as the only item; `with (a, b):`
                    // reads as two items.
                    let group = matches!(
                        items.as_slice(),
                        [WithItem {
                            context_expr: Expr::Tuple(_),
                            optional_vars: None,
                            ..
                        }]
                    );
                    self.p_if(group, "(");
                    let mut first = true;
                    for item in items {
                        self.p_delim(&mut first, ", ");
                        self.unparse_with_item(item);
                    }
                    self.p_if(group, ")");
                    self.p(":");
                });
                self.body(body);
            }
            Stmt::Match(ast::StmtMatch {
                subject,
                cases,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.p("match ");
                    self.unparse_expr(subject, precedence::MAX);
                    self.p(":");
                });
                for case in cases {
                    self.indent_depth = self.indent_depth.saturating_add(1);
                    statement!({
                        self.unparse_match_case(case);
                    });
                    self.indent_depth = self.indent_depth.saturating_sub(1);
                }
            }
            Stmt::TypeAlias(ast::StmtTypeAlias {
                name,
                range: _,
                node_index: _,
                type_params,
                value,
            }) => {
                statement!({
                    self.p("type ");
                    self.unparse_expr(name, precedence::MAX);
                    if let Some(type_params) = type_params {
                        self.unparse_type_params(type_params);
                    }
                    self.p(" = ");
                    self.unparse_expr(value, precedence::ASSIGN);
                });
            }
            Stmt::Raise(ast::StmtRaise {
                exc,
                cause,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.p("raise");
                    if let Some(exc) = exc {
                        self.p(" ");
                        self.unparse_expr(exc, precedence::MAX);
                    }
                    if let Some(cause) = cause {
                        self.p(" from ");
                        self.unparse_expr(cause, precedence::MAX);
                    }
                });
            }
            Stmt::Try(ast::StmtTry {
                body,
                handlers,
                orelse,
                finalbody,
                is_star,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.p("try:");
                });
                self.body(body);

                for handler in handlers {
                    statement!({
                        self.unparse_except_handler(handler, *is_star);
                    });
                }

                if !orelse.is_empty() {
                    statement!({
                        self.p("else:");
                    });
                    self.body(orelse);
                }
                if !finalbody.is_empty() {
                    statement!({
                        self.p("finally:");
                    });
                    self.body(finalbody);
                }
            }
            Stmt::Assert(ast::StmtAssert {
                test,
                msg,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.p("assert ");
                    self.unparse_expr(test, precedence::ASSERT);
                    if let Some(msg) = msg {
                        self.p(", ");
                        self.unparse_expr(msg, precedence::ASSERT);
                    }
                });
            }
            Stmt::Import(ast::StmtImport {
                names,
                is_lazy,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    if *is_lazy {
                        self.p("lazy ");
                    }
                    self.p("import ");
                    let mut first = true;
                    for alias in names {
                        self.p_delim(&mut first, ", ");
                        self.unparse_alias(alias);
                    }
                });
            }
            Stmt::ImportFrom(ast::StmtImportFrom {
                module,
                names,
                level,
                is_lazy,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    if *is_lazy {
                        self.p("lazy ");
                    }
                    self.p("from ");
                    if *level > 0 {
                        for _ in 0..*level {
                            self.p(".");
                        }
                    }
                    if let Some(module) = module {
                        self.p_id(module);
                    }
                    self.p(" import ");
                    let mut first = true;
                    for alias in names {
                        self.p_delim(&mut first, ", ");
                        self.unparse_alias(alias);
                    }
                });
            }
            Stmt::Global(ast::StmtGlobal {
                names,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.p("global ");
                    let mut first = true;
                    for name in names {
                        self.p_delim(&mut first, ", ");
                        self.p_id(name);
                    }
                });
            }
            Stmt::Nonlocal(ast::StmtNonlocal {
                names,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.p("nonlocal ");
                    let mut first = true;
                    for name in names {
                        self.p_delim(&mut first, ", ");
                        self.p_id(name);
                    }
                });
            }
            Stmt::Expr(ast::StmtExpr {
                value,
                range: _,
                node_index: _,
            }) => {
                statement!({
                    self.unparse_expr(value, precedence::EXPR);
                });
            }
            Stmt::Pass(_) => {
                statement!({
                    self.p("pass");
                });
            }
            Stmt::Break(_) => {
                statement!({
                    self.p("break");
                });
            }
            Stmt::Continue(_) => {
                statement!({
                    self.p("continue");
                });
            }
            Stmt::IpyEscapeCommand(ast::StmtIpyEscapeCommand { kind, value, .. }) => {
                statement!({
                    self.p(&format!("{kind}{value}"));
                });
            }
        }
    }

    fn unparse_except_handler(&mut self, ast: &ExceptHandler, star: bool) {
        match ast {
            ExceptHandler::ExceptHandler(ast::ExceptHandlerExceptHandler {
                type_,
                name,
                body,
                range: _,
                node_index: _,
            }) => {
                self.p("except");
                if star {
                    self.p("*");
                }
                if let Some(type_) = type_ {
                    self.p(" ");
                    self.unparse_expr(type_, precedence::MAX);
                }
                if let Some(name) = name {
                    self.p(" as ");
                    self.p_id(name);
                }
                self.p(":");
                self.body(body);
            }
        }
    }

    fn unparse_pattern(&mut self, ast: &Pattern) {
        match ast {
            Pattern::MatchValue(ast::PatternMatchValue {
                value,
                range: _,
                node_index: _,
            }) => {
                // stagecheck: a value pattern takes no parentheses (`case -1`, `case 1 + 2j`;
                // `case (-1)` does not parse): ADD is the loosest operator it can hold.
                self.unparse_expr(value, precedence::ADD);
            }
            Pattern::MatchSingleton(ast::PatternMatchSingleton {
                value,
                range: _,
                node_index: _,
            }) => {
                self.unparse_singleton(*value);
            }
            Pattern::MatchSequence(ast::PatternMatchSequence {
                patterns,
                range: _,
                node_index: _,
            }) => {
                self.p("[");
                let mut first = true;
                for pattern in patterns {
                    self.p_delim(&mut first, ", ");
                    self.unparse_pattern(pattern);
                }
                self.p("]");
            }
            Pattern::MatchMapping(ast::PatternMatchMapping {
                keys,
                patterns,
                rest,
                range: _,
                node_index: _,
            }) => {
                self.p("{");
                let mut first = true;
                for (key, pattern) in keys.iter().zip(patterns) {
                    self.p_delim(&mut first, ", ");
                    // stagecheck: a key is a value pattern (`{-1: x}`), see MatchValue.
                    self.unparse_expr(key, precedence::ADD);
                    self.p(": ");
                    self.unparse_pattern(pattern);
                }
                if let Some(rest) = rest {
                    self.p_delim(&mut first, ", ");
                    self.p("**");
                    self.p_id(rest);
                }
                self.p("}");
            }
            // stagecheck: class patterns were printed as nothing (`case C(1, k=x)` became
            // `case `).
            Pattern::MatchClass(ast::PatternMatchClass {
                cls,
                arguments,
                range: _,
                node_index: _,
            }) => {
                self.unparse_expr(cls, precedence::MAX);
                self.p("(");
                let mut first = true;
                for pattern in &arguments.patterns {
                    self.p_delim(&mut first, ", ");
                    self.unparse_pattern(pattern);
                }
                for keyword in &arguments.keywords {
                    self.p_delim(&mut first, ", ");
                    self.p_id(&keyword.attr);
                    self.p("=");
                    self.unparse_pattern(&keyword.pattern);
                }
                self.p(")");
            }
            Pattern::MatchStar(ast::PatternMatchStar {
                name,
                range: _,
                node_index: _,
            }) => {
                self.p("*");
                if let Some(name) = name {
                    self.p_id(name);
                } else {
                    self.p("_");
                }
            }
            Pattern::MatchAs(ast::PatternMatchAs {
                pattern,
                name,
                range: _,
                node_index: _,
            }) => {
                if let Some(pattern) = pattern {
                    // stagecheck: `(p as x) as y` (`p as x as y` does not parse).
                    let group = matches!(
                        pattern.as_ref(),
                        Pattern::MatchAs(ast::PatternMatchAs { pattern: Some(_), .. })
                    );
                    self.p_if(group, "(");
                    self.unparse_pattern(pattern);
                    self.p_if(group, ")");
                    self.p(" as ");
                }
                if let Some(name) = name {
                    self.p_id(name);
                } else {
                    self.p("_");
                }
            }
            Pattern::MatchOr(ast::PatternMatchOr {
                patterns,
                range: _,
                node_index: _,
            }) => {
                let mut first = true;
                for pattern in patterns {
                    self.p_delim(&mut first, " | ");
                    // stagecheck: an alternative is a closed pattern: `(p as x) | q`
                    // (`p as x | q` does not parse), `(p | q) | r` (a nested or-pattern,
                    // not one of three alternatives).
                    let group = matches!(
                        pattern,
                        Pattern::MatchOr(_)
                            | Pattern::MatchAs(ast::PatternMatchAs { pattern: Some(_), .. })
                    );
                    self.p_if(group, "(");
                    self.unparse_pattern(pattern);
                    self.p_if(group, ")");
                }
            }
        }
    }

    fn unparse_match_case(&mut self, ast: &MatchCase) {
        self.p("case ");
        self.unparse_pattern(&ast.pattern);
        if let Some(guard) = &ast.guard {
            self.p(" if ");
            self.unparse_expr(guard, precedence::MAX);
        }
        self.p(":");
        self.body(&ast.body);
    }

    fn unparse_type_params(&mut self, type_params: &TypeParams) {
        self.p("[");
        let mut first = true;
        for type_param in type_params {
            self.p_delim(&mut first, ", ");
            self.unparse_type_param(type_param);
        }
        self.p("]");
    }

    fn unparse_type_param(&mut self, ast: &TypeParam) {
        match ast {
            TypeParam::TypeVar(TypeParamTypeVar {
                name,
                bound,
                default,
                ..
            }) => {
                self.p_id(name);
                if let Some(expr) = bound {
                    self.p(": ");
                    self.unparse_expr(expr, precedence::MAX);
                }
                if let Some(expr) = default {
                    self.p(" = ");
                    self.unparse_expr(expr, precedence::MAX);
                }
            }
            TypeParam::TypeVarTuple(TypeParamTypeVarTuple { name, default, .. }) => {
                self.p("*");
                self.p_id(name);
                if let Some(expr) = default {
                    self.p(" = ");
                    self.unparse_expr(expr, precedence::MAX);
                }
            }
            TypeParam::ParamSpec(TypeParamParamSpec { name, default, .. }) => {
                self.p("**");
                self.p_id(name);
                if let Some(expr) = default {
                    self.p(" = ");
                    self.unparse_expr(expr, precedence::MAX);
                }
            }
        }
    }

    fn unparse_expr(&mut self, ast: &Expr, level: u8) {
        macro_rules! opprec {
            ($opty:ident, $x:expr, $enu:path, $($var:ident($op:literal, $prec:ident)),*$(,)?) => {
                match $x {
                    $(<$enu>::$var => (opprec!(@space $opty, $op), precedence::$prec),)*
                }
            };
            (@space bin, $op:literal) => {
                concat!(" ", $op, " ")
            };
            (@space un, $op:literal) => {
                $op
            };
        }
        macro_rules! group_if {
            ($lvl:expr, $body:block) => {{
                let group = level > $lvl;
                self.p_if(group, "(");
                let ret = $body;
                self.p_if(group, ")");
                ret
            }};
        }
        match ast {
            Expr::BoolOp(ast::ExprBoolOp {
                op,
                values,
                range: _,
                node_index: _,
            }) => {
                let (op, prec) = opprec!(bin, op, BoolOp, And("and", AND), Or("or", OR));
                group_if!(prec, {
                    let mut first = true;
                    for val in values {
                        self.p_delim(&mut first, op);
                        self.unparse_expr(val, prec + 1);
                    }
                });
            }
            Expr::Named(ast::ExprNamed {
                target,
                value,
                range: _,
                node_index: _,
            }) => {
                group_if!(precedence::NAMED_EXPR, {
                    self.unparse_expr(target, precedence::NAMED_EXPR);
                    self.p(" := ");
                    // stagecheck: the value is an `expression`, in which a tuple needs its
                    // parentheses (`(v := (1, 2))`, not `(v := 1, 2)`).
                    self.unparse_expr(value, precedence::COMMA);
                });
            }
            Expr::BinOp(ast::ExprBinOp {
                left,
                op,
                right,
                range: _,
                node_index: _,
            }) => {
                let rassoc = matches!(op, Operator::Pow);
                let (op, prec) = opprec!(
                    bin,
                    op,
                    Operator,
                    Add("+", ADD),
                    Sub("-", SUB),
                    Mult("*", MULT),
                    MatMult("@", MAT_MULT),
                    Div("/", DIV),
                    Mod("%", MOD),
                    Pow("**", POW),
                    LShift("<<", LSHIFT),
                    RShift(">>", RSHIFT),
                    BitOr("|", BIT_OR),
                    BitXor("^", BIT_XOR),
                    BitAnd("&", BIT_AND),
                    FloorDiv("//", FLOORDIV),
                );
                group_if!(prec, {
                    self.unparse_expr(left, prec + u8::from(rassoc));
                    self.p(op);
                    self.unparse_expr(right, prec + u8::from(!rassoc));
                });
            }
            Expr::UnaryOp(ast::ExprUnaryOp {
                op,
                operand,
                range: _,
                node_index: _,
            }) => {
                let (op, prec) = opprec!(
                    un,
                    op,
                    ruff_python_ast::UnaryOp,
                    Invert("~", INVERT),
                    Not("not ", NOT),
                    UAdd("+", UADD),
                    USub("-", USUB)
                );
                group_if!(prec, {
                    self.p(op);
                    self.unparse_expr(operand, prec);
                });
            }
            Expr::Lambda(ast::ExprLambda {
                parameters,
                body,
                range: _,
                node_index: _,
            }) => {
                group_if!(precedence::LAMBDA, {
                    self.p("lambda");
                    if let Some(parameters) = parameters {
                        self.p(" ");
                        self.unparse_parameters(parameters);
                    }
                    self.p(": ");
                    self.unparse_expr(body, precedence::LAMBDA);
                });
            }
            Expr::If(ast::ExprIf {
                test,
                body,
                orelse,
                range: _,
                node_index: _,
            }) => {
                group_if!(precedence::IF_EXP, {
                    self.unparse_expr(body, precedence::IF_EXP + 1);
                    self.p(" if ");
                    self.unparse_expr(test, precedence::IF_EXP + 1);
                    self.p(" else ");
                    self.unparse_expr(orelse, precedence::IF_EXP);
                });
            }
            Expr::Dict(dict) => {
                self.p("{");
                let mut first = true;
                for ast::DictItem { key, value } in dict {
                    self.p_delim(&mut first, ", ");
                    if let Some(key) = key {
                        self.unparse_expr(key, precedence::COMMA);
                        self.p(": ");
                        self.unparse_expr(value, precedence::COMMA);
                    } else {
                        self.p("**");
                        self.unparse_expr(value, precedence::MAX);
                    }
                }
                self.p("}");
            }
            Expr::Set(set) => {
                if set.is_empty() {
                    self.p("set()");
                } else {
                    self.p("{");
                    let mut first = true;
                    for item in set {
                        self.p_delim(&mut first, ", ");
                        self.unparse_expr(item, precedence::COMMA);
                    }
                    self.p("}");
                }
            }
            Expr::ListComp(ast::ExprListComp {
                elt,
                generators,
                range: _,
                node_index: _,
            }) => {
                self.p("[");
                self.unparse_expr(elt, precedence::COMPREHENSION_ELEMENT);
                self.unparse_comp(generators);
                self.p("]");
            }
            Expr::SetComp(ast::ExprSetComp {
                elt,
                generators,
                range: _,
                node_index: _,
            }) => {
                self.p("{");
                self.unparse_expr(elt, precedence::COMPREHENSION_ELEMENT);
                self.unparse_comp(generators);
                self.p("}");
            }
            Expr::DictComp(ast::ExprDictComp {
                key,
                value,
                generators,
                range: _,
                node_index: _,
            }) => {
                self.p("{");
                if let Some(key) = key {
                    self.unparse_expr(key, precedence::COMPREHENSION_ELEMENT);
                    self.p(": ");
                } else {
                    self.p("**");
                }
                self.unparse_expr(value, precedence::COMPREHENSION_ELEMENT);
                self.unparse_comp(generators);
                self.p("}");
            }
            Expr::Generator(ast::ExprGenerator {
                elt,
                generators,
                parenthesized: _,
                range: _,
                node_index: _,
            }) => {
                self.p("(");
                self.unparse_expr(elt, precedence::COMPREHENSION_ELEMENT);
                self.unparse_comp(generators);
                self.p(")");
            }
            Expr::Await(ast::ExprAwait {
                value,
                range: _,
                node_index: _,
            }) => {
                group_if!(precedence::AWAIT, {
                    self.p("await ");
                    self.unparse_expr(value, precedence::MAX);
                });
            }
            Expr::Yield(ast::ExprYield {
                value,
                range: _,
                node_index: _,
            }) => {
                group_if!(precedence::YIELD, {
                    self.p("yield");
                    if let Some(value) = value {
                        self.p(" ");
                        self.unparse_expr(value, precedence::YIELD + 1);
                    }
                });
            }
            Expr::YieldFrom(ast::ExprYieldFrom {
                value,
                range: _,
                node_index: _,
            }) => {
                group_if!(precedence::YIELD_FROM, {
                    self.p("yield from ");
                    self.unparse_expr(value, precedence::MAX);
                });
            }
            Expr::Compare(ast::ExprCompare {
                left,
                ops,
                comparators,
                range: _,
                node_index: _,
            }) => {
                group_if!(precedence::CMP, {
                    let new_lvl = precedence::CMP + 1;
                    self.unparse_expr(left, new_lvl);
                    for (op, cmp) in ops.iter().zip(comparators) {
                        let op = match op {
                            CmpOp::Eq => " == ",
                            CmpOp::NotEq => " != ",
                            CmpOp::Lt => " < ",
                            CmpOp::LtE => " <= ",
                            CmpOp::Gt => " > ",
                            CmpOp::GtE => " >= ",
                            CmpOp::Is => " is ",
                            CmpOp::IsNot => " is not ",
                            CmpOp::In => " in ",
                            CmpOp::NotIn => " not in ",
                        };
                        self.p(op);
                        self.unparse_expr(cmp, new_lvl);
                    }
                });
            }
            Expr::Call(ast::ExprCall {
                func,
                arguments,
                range_start: _,
                node_index: _,
            }) => {
                self.unparse_expr(func, precedence::MAX);
                self.p("(");
                if let (
                    [
                        Expr::Generator(ast::ExprGenerator {
                            elt,
                            generators,
                            range: _,
                            node_index: _,
                            parenthesized: _,
                        }),
                    ],
                    [],
                ) = (arguments.args.as_ref(), arguments.keywords.as_ref())
                {
                    // Ensure that a single generator doesn't get double-parenthesized.
                    self.unparse_expr(elt, precedence::COMMA);
                    self.unparse_comp(generators);
                } else {
                    let mut first = true;

                    for arg_or_keyword in arguments.iter_source_order() {
                        match arg_or_keyword {
                            ArgOrKeyword::Arg(arg) => {
                                self.p_delim(&mut first, ", ");
                                self.unparse_expr(arg, precedence::COMMA);
                            }
                            ArgOrKeyword::Keyword(keyword) => {
                                self.p_delim(&mut first, ", ");
                                if let Some(arg) = &keyword.arg {
                                    self.p_id(arg);
                                    self.p("=");
                                    self.unparse_expr(&keyword.value, precedence::COMMA);
                                } else {
                                    self.p("**");
                                    self.unparse_expr(&keyword.value, precedence::MAX);
                                }
                            }
                        }
                    }
                }
                self.p(")");
            }
            Expr::FString(ast::ExprFString { value, .. }) => {
                self.printed_interpolated = true;
                self.unparse_f_string_value(value);
            }
            Expr::TString(ast::ExprTString { value, .. }) => {
                self.printed_interpolated = true;
                self.unparse_t_string_value(value);
            }
            Expr::StringLiteral(ast::ExprStringLiteral { value, .. }) => {
                self.unparse_string_literal_value(value);
            }
            Expr::BytesLiteral(ast::ExprBytesLiteral { value, .. }) => {
                let mut first = true;
                for bytes_literal in value {
                    self.p_delim(&mut first, " ");
                    // stagecheck: as written (see `with_source`).
                    let same = |e: &Expr| match e {
                        Expr::BytesLiteral(b) => match b.value.as_slice() {
                            [part] => part.value == bytes_literal.value,
                            _ => false,
                        },
                        _ => false,
                    };
                    if !self.p_original(bytes_literal.range, same) {
                        self.p_bytes_repr(&bytes_literal.value, bytes_literal.flags);
                    }
                }
            }
            #[expect(clippy::eq_op)]
            Expr::NumberLiteral(ast::ExprNumberLiteral { value, range, .. }) => {
                static INF_STR: &str = "1e309";
                // stagecheck: as written (see `with_source`): `1_000`, `0x1f`, `1e-7`.
                let same = |e: &Expr| matches!(e, Expr::NumberLiteral(n) if n.value == *value);
                if self.p_original(*range, same) {
                    return;
                }
                assert_eq!(f64::MAX_10_EXP, 308);

                match value {
                    ast::Number::Int(i) => {
                        self.p(&format!("{i}"));
                    }
                    ast::Number::Float(fp) => {
                        if fp.is_infinite() {
                            self.p(INF_STR);
                        } else if fp.is_nan() {
                            self.p(&ruff_python_literal::float::to_string(*fp));
                        } else {
                            // stagecheck: Rust's shortest representation that reads back as
                            // the same float (`0.1`, `1e16`, `1e-7`); `float::to_string` wrote
                            // 0.9999999999999999 as `1.0`.
                            self.p(&format!("{fp:?}"));
                        }
                    }
                    ast::Number::Complex { real, imag } => {
                        let value = if *real == 0.0 {
                            format!("{imag}j")
                        } else {
                            format!("({real}{imag:+}j)")
                        };
                        if real.is_infinite() || imag.is_infinite() {
                            self.p(&value.replace("inf", INF_STR));
                        } else {
                            self.p(&value);
                        }
                    }
                }
            }
            Expr::BooleanLiteral(ast::ExprBooleanLiteral { value, .. }) => {
                self.p(if *value { "True" } else { "False" });
            }
            Expr::NoneLiteral(_) => {
                self.p("None");
            }
            Expr::EllipsisLiteral(_) => {
                self.p("...");
            }
            Expr::Attribute(ast::ExprAttribute { value, attr, .. }) => {
                if let Expr::NumberLiteral(ast::ExprNumberLiteral {
                    value: ast::Number::Int(_),
                    ..
                }) = value.as_ref()
                {
                    self.p("(");
                    self.unparse_expr(value, precedence::MAX);
                    self.p(").");
                } else {
                    self.unparse_expr(value, precedence::MAX);
                    self.p(".");
                }
                self.p_id(attr);
            }
            Expr::Subscript(ast::ExprSubscript { value, slice, .. }) => {
                self.unparse_expr(value, precedence::MAX);
                self.p("[");
                self.unparse_expr(slice, precedence::SUBSCRIPT);
                self.p("]");
            }
            Expr::Starred(ast::ExprStarred { value, .. }) => {
                self.p("*");
                self.unparse_expr(value, precedence::MAX);
            }
            Expr::Name(ast::ExprName { id, .. }) => self.p(id.as_str()),
            Expr::List(list) => {
                self.p("[");
                let mut first = true;
                for item in list {
                    self.p_delim(&mut first, ", ");
                    self.unparse_expr(item, precedence::COMMA);
                }
                self.p("]");
            }
            Expr::Tuple(tuple) => {
                if tuple.is_empty() {
                    self.p("()");
                } else {
                    let lvl = match self.mode {
                        Mode::Default => precedence::TUPLE,
                        Mode::AstUnparse => precedence::MIN,
                    };
                    group_if!(lvl, {
                        let mut first = true;
                        for item in tuple {
                            self.p_delim(&mut first, ", ");
                            self.unparse_expr(item, precedence::COMMA);
                        }
                        self.p_if(tuple.len() == 1, ",");
                    });
                }
            }
            Expr::Slice(ast::ExprSlice {
                lower,
                upper,
                step,
                range: _,
                node_index: _,
            }) => {
                // stagecheck: a bound is an `expression`, in which a tuple needs its
                // parentheses (`a[(1, 2):3]`, not `a[1, 2:3]`): COMMA, not SLICE.
                if let Some(lower) = lower {
                    self.unparse_expr(lower, precedence::COMMA);
                }
                self.p(":");
                if let Some(upper) = upper {
                    self.unparse_expr(upper, precedence::COMMA);
                }
                if let Some(step) = step {
                    self.p(":");
                    self.unparse_expr(step, precedence::COMMA);
                }
            }
            Expr::IpyEscapeCommand(ast::ExprIpyEscapeCommand { kind, value, .. }) => {
                self.p(&format!("{kind}{value}"));
            }
        }
    }

    fn unparse_singleton(&mut self, singleton: Singleton) {
        match singleton {
            Singleton::None => self.p("None"),
            Singleton::True => self.p("True"),
            Singleton::False => self.p("False"),
        }
    }

    fn unparse_parameters(&mut self, parameters: &Parameters) {
        let mut first = true;
        for (i, parameter_with_default) in parameters
            .posonlyargs
            .iter()
            .chain(&parameters.args)
            .enumerate()
        {
            self.p_delim(&mut first, ", ");
            self.unparse_parameter_with_default(parameter_with_default);
            self.p_if(i + 1 == parameters.posonlyargs.len(), ", /");
        }
        if parameters.vararg.is_some() || !parameters.kwonlyargs.is_empty() {
            self.p_delim(&mut first, ", ");
            self.p("*");
        }
        if let Some(vararg) = &parameters.vararg {
            self.unparse_parameter(vararg);
        }
        for kwarg in &parameters.kwonlyargs {
            self.p_delim(&mut first, ", ");
            self.unparse_parameter_with_default(kwarg);
        }
        if let Some(kwarg) = &parameters.kwarg {
            self.p_delim(&mut first, ", ");
            self.p("**");
            self.unparse_parameter(kwarg);
        }
    }

    fn unparse_parameter(&mut self, parameter: &Parameter) {
        self.p_id(&parameter.name);
        if let Some(ann) = &parameter.annotation {
            self.p(": ");
            self.unparse_expr(ann, precedence::COMMA);
        }
    }

    fn unparse_parameter_with_default(&mut self, parameter_with_default: &ParameterWithDefault) {
        self.unparse_parameter(&parameter_with_default.parameter);
        if let Some(default) = &parameter_with_default.default {
            self.p("=");
            self.unparse_expr(default, precedence::COMMA);
        }
    }

    fn unparse_comp(&mut self, generators: &[Comprehension]) {
        for comp in generators {
            self.p(if comp.is_async {
                " async for "
            } else {
                " for "
            });
            self.unparse_expr(&comp.target, precedence::COMPREHENSION_TARGET);
            self.p(" in ");
            self.unparse_expr(&comp.iter, precedence::COMPREHENSION);
            for cond in &comp.ifs {
                self.p(" if ");
                self.unparse_expr(cond, precedence::COMPREHENSION);
            }
        }
    }

    fn unparse_string_literal(&mut self, string_literal: &ast::StringLiteral) {
        let ast::StringLiteral { value, flags, range, .. } = string_literal;
        // stagecheck: as written (see `with_source`).
        let same = |e: &Expr| match e {
            Expr::StringLiteral(s) => match s.value.as_slice() {
                [part] => part.value == *value,
                _ => false,
            },
            _ => false,
        };
        if !self.p_original(*range, same) {
            self.p_str_repr(value, *flags);
        }
    }

    fn unparse_string_literal_value(&mut self, value: &ast::StringLiteralValue) {
        let mut first = true;
        for string_literal in value {
            self.p_delim(&mut first, " ");
            self.unparse_string_literal(string_literal);
        }
    }

    fn unparse_f_string_value(&mut self, value: &ast::FStringValue) {
        let mut first = true;
        for f_string_part in value {
            self.p_delim(&mut first, " ");
            match f_string_part {
                ast::FStringPart::Literal(string_literal) => {
                    self.unparse_string_literal(string_literal);
                }
                ast::FStringPart::FString(f_string) => {
                    // stagecheck: as written when the tree is the one parsed from its text
                    // (no expression in it rewritten; see `with_source`).
                    let same = |e: &Expr| {
                        ComparableExpr::from(e) == ComparableExpr::from(&Expr::from(f_string.clone()))
                    };
                    if !self.p_original(f_string.range, same) {
                        self.unparse_interpolated_string(&f_string.elements, f_string.flags.into());
                    }
                }
            }
        }
    }

    fn unparse_interpolated_string_body(
        &mut self,
        values: &[ast::InterpolatedStringElement],
        flags: AnyStringFlags,
    ) {
        for value in values {
            self.unparse_interpolated_string_element(value, flags);
        }
    }

    fn unparse_interpolated_element(
        &mut self,
        val: &Expr,
        debug_text: Option<&DebugText>,
        conversion: ConversionFlag,
        spec: Option<&ast::InterpolatedStringFormatSpec>,
        flags: AnyStringFlags,
    ) {
        // stagecheck: a self-documenting expression (`f"{a+b = }"`) is printed as its debug
        // text, which Python prints at run time: leading text, the expression's source and
        // trailing text, verbatim. The expression was printed anew (`a + b`), which changed
        // the program's output; and the space added before a leading `{` went into the text.
        let expression = if let Some(debug_text) = debug_text {
            debug_text.as_str().to_string()
        } else {
            let mut generator = Generator::new(self.indent, self.line_ending);
            generator.source = self.source;
            // stagecheck: the `:` of a lambda outside brackets would start the format spec
            // (`f"{lambda: 1}"` does not parse): parenthesize the expression.
            let group = has_bare_lambda(val);
            generator.p_if(group, "(");
            generator.unparse_expr(val, precedence::FORMATTED_VALUE);
            generator.p_if(group, ")");
            generator.buffer
        };
        let brace = if expression.starts_with('{') {
            // put a space to avoid escaping the bracket
            "{ "
        } else {
            "{"
        };
        self.p(brace);

        self.buffer += &expression;

        if !conversion.is_none() {
            self.p("!");

            self.p(&format!("{}", conversion as u8 as char));
        }

        if let Some(spec) = spec {
            self.p(":");
            self.unparse_f_string_specifier(&spec.elements, flags);
        }

        self.p("}");
    }

    fn unparse_interpolated_string_element(
        &mut self,
        element: &ast::InterpolatedStringElement,
        flags: AnyStringFlags,
    ) {
        match element {
            ast::InterpolatedStringElement::Literal(ast::InterpolatedStringLiteralElement {
                value,
                ..
            }) => {
                self.unparse_interpolated_string_literal_element(value, flags);
            }
            ast::InterpolatedStringElement::Interpolation(ast::InterpolatedElement {
                expression,
                debug_text,
                conversion,
                format_spec,
                range: _,
                node_index: _,
            }) => self.unparse_interpolated_element(
                expression,
                debug_text.as_ref(),
                *conversion,
                format_spec.as_deref(),
                flags,
            ),
        }
    }

    fn unparse_interpolated_string_literal_element(&mut self, s: &str, flags: AnyStringFlags) {
        let s = s.replace('{', "{{").replace('}', "}}");
        if flags.prefix().is_raw() {
            self.buffer += &s;
            return;
        }

        let quote_style = self.mode.quote_style(flags);
        let escape = UnicodeEscape::with_preferred_quote(&s, quote_style);
        if escape.layout().quote != quote_style {
            // stagecheck: the text holds the f-string's quote and not the other one, so the
            // escape chose the other quote and left this one unescaped (`f'{a}\''` was
            // printed `f'{a}''`). The f-string's quote is fixed: escape it here (no escape
            // sequence written for other characters contains a quote).
            let mut body = String::new();
            escape
                .write_body(&mut body)
                .expect("Writing to a String buffer should never fail");
            let quote = quote_style.as_char();
            self.buffer += &body.replace(quote, &format!("\\{quote}"));
            return;
        }
        if let Some(len) = escape.layout().len {
            self.buffer.reserve(len);
        }
        escape
            .write_body(&mut self.buffer)
            .expect("Writing to a String buffer should never fail");
    }

    fn unparse_f_string_specifier(
        &mut self,
        values: &[ast::InterpolatedStringElement],
        flags: AnyStringFlags,
    ) {
        self.unparse_interpolated_string_body(values, flags);
    }

    /// Unparse `values` with [`Generator::unparse_f_string_body`], using `quote` as the preferred
    /// surrounding quote style.
    fn unparse_interpolated_string(
        &mut self,
        values: &[ast::InterpolatedStringElement],
        flags: AnyStringFlags,
    ) {
        self.p(flags.prefix().as_str());

        let quote_style = self.mode.quote_style(flags);
        let flags = flags.with_quote_style(quote_style);
        self.p(flags.quote_str());
        let mut after_original = false;
        for value in values {
            // stagecheck: a literal element as written (see `with_source`), when the
            // string keeps the flags its text was written for (format specs are printed
            // from their values).
            if let ast::InterpolatedStringElement::Literal(literal) = value {
                if matches!(self.mode, Mode::Default) && self.p_original_element(literal, flags) {
                    after_original = self.original_text(literal.range).is_some_and(ends_in_short_octal);
                    continue;
                }
                // stagecheck: a literal element printed from its value right after one
                // copied as written that ends in a short octal escape (the text of an
                // f-string `=` form the transformer lowered: `f'\1{2=}'` → `\1` then
                // `2=`) starts with an octal digit: escaped, or the escape takes it in
                // (`f'\12={2!r}'`).
                let first = literal.value.chars().next().filter(|c| ('0'..='7').contains(c));
                if let (true, false, Some(c)) = (after_original, flags.prefix().is_raw(), first) {
                    self.p(&format!("\\x{:02x}", c as u32));
                    self.unparse_interpolated_string_literal_element(&literal.value[1..], flags);
                    after_original = false;
                    continue;
                }
            }
            after_original = false;
            self.unparse_interpolated_string_element(value, flags);
        }
        self.p(flags.quote_str());
    }

    fn unparse_t_string_value(&mut self, value: &ast::TStringValue) {
        let mut first = true;
        for t_string in value {
            self.p_delim(&mut first, " ");
            // stagecheck: as written when unchanged, as f-strings.
            let same = |e: &Expr| {
                ComparableExpr::from(e) == ComparableExpr::from(&Expr::from(t_string.clone()))
            };
            if !self.p_original(t_string.range, same) {
                self.unparse_interpolated_string(&t_string.elements, t_string.flags.into());
            }
        }
    }

    fn unparse_alias(&mut self, alias: &Alias) {
        self.p_id(&alias.name);
        if let Some(asname) = &alias.asname {
            self.p(" as ");
            self.p_id(asname);
        }
    }

    fn unparse_with_item(&mut self, with_item: &WithItem) {
        self.unparse_expr(&with_item.context_expr, precedence::MAX);
        if let Some(optional_vars) = &with_item.optional_vars {
            self.p(" as ");
            self.unparse_expr(optional_vars, precedence::MAX);
        }
    }
}

/// stagecheck: whether the text of a string ends in an octal escape of one or two
/// digits (`\1`, `\12`, not `\\1` or `\123`), which a digit written after it would extend.
fn ends_in_short_octal(text: &str) -> bool {
    let digits = text.bytes().rev().take_while(|b| (b'0'..=b'7').contains(b)).count();
    let backslashes = text[..text.len() - digits].bytes().rev().take_while(|b| *b == b'\\').count();
    (1..=2).contains(&digits) && backslashes % 2 == 1
}

/// stagecheck: whether `expr`, printed at [`precedence::FORMATTED_VALUE`], has a lambda outside
/// brackets: itself, the last operand of a conditional expression, an element of a tuple.
fn has_bare_lambda(expr: &Expr) -> bool {
    match expr {
        Expr::Lambda(_) => true,
        Expr::If(ast::ExprIf { orelse, .. }) => has_bare_lambda(orelse),
        Expr::Tuple(tuple) => tuple.iter().any(has_bare_lambda),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use ruff_python_ast::{Mod, ModModule};
    use ruff_python_parser::{self, Mode, ParseOptions, parse_module};
    use ruff_source_file::LineEnding;

    use crate::stylist::Indentation;

    use super::{Generator, Mode as UnparseMode};

    fn round_trip(contents: &str) -> String {
        let indentation = Indentation::default();
        let line_ending = LineEnding::default();
        let module = parse_module(contents).unwrap();
        let mut generator = Generator::new(&indentation, line_ending);
        generator.unparse_suite(module.suite());
        generator.generate()
    }

    /// Like [`round_trip`] but configure the [`Generator`] with the requested
    /// `indentation`, `line_ending` and `unparse_mode` settings.
    fn round_trip_with(
        indentation: &Indentation,
        line_ending: LineEnding,
        unparse_mode: UnparseMode,
        contents: &str,
    ) -> String {
        let module = parse_module(contents).unwrap();
        let mut generator = Generator::new(indentation, line_ending).with_mode(unparse_mode);
        generator.unparse_suite(module.suite());
        generator.generate()
    }

    fn jupyter_round_trip(contents: &str) -> String {
        let indentation = Indentation::default();
        let line_ending = LineEnding::default();
        let parsed =
            ruff_python_parser::parse(contents, ParseOptions::from(Mode::Ipython)).unwrap();
        let Mod::Module(ModModule { body, .. }) = parsed.into_syntax() else {
            panic!("Source code didn't return ModModule")
        };
        let [stmt] = body.as_slice() else {
            panic!("Expected only one statement in source code")
        };
        let mut generator = Generator::new(&indentation, line_ending);
        generator.unparse_stmt(stmt);
        generator.generate()
    }

    macro_rules! assert_round_trip {
        ($contents:expr) => {
            assert_eq!(
                round_trip($contents),
                $contents.replace('\n', LineEnding::default().as_str())
            );
        };
    }

    #[test]
    fn unparse_magic_commands() {
        assert_eq!(
            jupyter_round_trip("%matplotlib inline"),
            "%matplotlib inline"
        );
        assert_eq!(
            jupyter_round_trip("%matplotlib \\\n  inline"),
            "%matplotlib   inline"
        );
        assert_eq!(jupyter_round_trip("dir = !pwd"), "dir = !pwd");
    }

    #[test]
    fn unparse() {
        assert_round_trip!("{i for i in b async for i in a if await i for b in i}");
        assert_round_trip!("f(**x)");
        assert_round_trip!("{**x}");
        assert_round_trip!("f(**([] or 5))");
        assert_round_trip!(r#"my_function(*[1], *[2], **{"three": 3}, **{"four": "four"})"#);
        assert_round_trip!("{**([] or 5)}");
        assert_round_trip!("del l[0]");
        assert_round_trip!("del obj.x");
        assert_round_trip!("a @ b");
        assert_round_trip!("a @= b");
        assert_round_trip!("x.foo");
        assert_round_trip!("return await (await bar())");
        assert_round_trip!("(5).foo");
        assert_round_trip!(r#"our_dict = {"a": 1, **{"b": 2, "c": 3}}"#);
        assert_round_trip!(r"j = [1, 2, 3]");
        assert_round_trip!(
            r#"def test(a1, a2, b1=j, b2="123", b3={}, b4=[]):
    pass"#
        );
        assert_round_trip!("a @ b");
        assert_round_trip!("a @= b");
        assert_round_trip!("[1, 2, 3]");
        assert_round_trip!("foo(1)");
        assert_round_trip!("foo(1, 2)");
        assert_round_trip!("foo(x for x in y)");
        assert_round_trip!("foo([x for x in y])");
        assert_round_trip!("foo([(x := 2) for x in y])");
        assert_round_trip!("x = yield 1");
        assert_round_trip!("return (yield 1)");
        assert_round_trip!("lambda: (1, 2, 3)");
        assert_round_trip!("return 3 and 4");
        assert_round_trip!("return 3 or 4");
        assert_round_trip!("yield from some()");
        assert_round_trip!(r#"assert (1, 2, 3), "msg""#);
        assert_round_trip!("import ast");
        assert_round_trip!("import operator as op");
        assert_round_trip!("from math import floor");
        assert_round_trip!("from .. import foobar");
        assert_round_trip!("from ..aaa import foo, bar as bar2");
        assert_round_trip!(r#"return f"functools.{qualname}({', '.join(args)})""#);
        assert_round_trip!(r#"my_function(*[1], *[2], **{"three": 3}, **{"four": "four"})"#);
        assert_round_trip!(r#"our_dict = {"a": 1, **{"b": 2, "c": 3}}"#);
        assert_round_trip!("f(**x)");
        assert_round_trip!("{**x}");
        assert_round_trip!("f(**([] or 5))");
        assert_round_trip!("{**([] or 5)}");
        assert_round_trip!(r#"return f"functools.{qualname}({', '.join(args)})""#);
        assert_round_trip!(
            r#"class TreeFactory(*[FactoryMixin, TreeBase], **{"metaclass": Foo}):
    pass"#
        );
        assert_round_trip!(
            r"class Foo(Bar, object):
    pass"
        );
        assert_round_trip!(
            r"class Foo[T]:
    pass"
        );
        assert_round_trip!(
            r"class Foo[T](Bar):
    pass"
        );
        assert_round_trip!(
            r"class Foo[*Ts]:
    pass"
        );
        assert_round_trip!(
            r"class Foo[**P]:
    pass"
        );
        assert_round_trip!(
            r"class Foo[T, U, *Ts, **P]:
    pass"
        );
        assert_round_trip!(
            r"def f() -> (int, str):
    pass"
        );
        assert_round_trip!("[await x async for x in y]");
        assert_round_trip!("[await i for i in b if await c]");
        assert_round_trip!("(await x async for x in y)");
        assert_round_trip!(
            r#"async def read_data(db):
    async with connect(db) as db_cxn:
        data = await db_cxn.fetch("SELECT foo FROM bar;")
    async for datum in data:
        if quux(datum):
            return datum"#
        );
        assert_round_trip!(
            r"def f() -> (int, int):
    pass"
        );
        assert_round_trip!(
            r"def test(a, b, /, c, *, d, **kwargs):
    pass"
        );
        assert_round_trip!(
            r"def test(a=3, b=4, /, c=7):
    pass"
        );
        assert_round_trip!(
            r"def test(a, b=4, /, c=8, d=9):
    pass"
        );
        assert_round_trip!(
            r"def test[T]():
    pass"
        );
        assert_round_trip!(
            r"def test[*Ts]():
    pass"
        );
        assert_round_trip!(
            r"def test[**P]():
    pass"
        );
        assert_round_trip!(
            r"def test[T, U, *Ts, **P]():
    pass"
        );
        assert_round_trip!(
            r"def call(*popenargs, timeout=None, **kwargs):
    pass"
        );
        assert_round_trip!(
            r"@functools.lru_cache(maxsize=None)
def f(x: int, y: int) -> int:
    return x + y"
        );
        assert_round_trip!(
            r"try:
    pass
except Exception as e:
    pass"
        );
        assert_round_trip!(
            r"try:
    pass
except* Exception as e:
    pass"
        );
        assert_round_trip!(
            r"match x:
    case [1, 2, 3]:
        return 2
    case 4 as y:
        return y"
        );
        assert_round_trip!(
            r"type X = int
type Y = str"
        );
        assert_eq!(round_trip(r"x = (1, 2, 3)"), r"x = 1, 2, 3");
        assert_eq!(round_trip(r"x = (1, (2, 3))"), r"x = 1, (2, 3)");
        assert_eq!(round_trip(r"-(1) + ~(2) + +(3)"), r"-1 + ~2 + +3");
        assert_round_trip!(
            r"def f():

    def f():
        pass"
        );
        assert_round_trip!(
            r"@foo
def f():

    @foo
    def f():
        pass"
        );

        assert_round_trip!(
            r"@foo
class Foo:

    @foo
    def f():
        pass"
        );

        assert_round_trip!(r"[lambda n: n for n in range(10)]");
        assert_round_trip!(r"[n[0:2] for n in range(10)]");
        assert_round_trip!(r"[n[0] for n in range(10)]");
        assert_round_trip!(r"[(n, n * 2) for n in range(10)]");
        assert_round_trip!(r"[1 if n % 2 == 0 else 0 for n in range(10)]");
        assert_round_trip!(r"[n % 2 == 0 or 0 for n in range(10)]");
        assert_round_trip!(r"[(n := 2) for n in range(10)]");
        assert_round_trip!(r"((n := 2) for n in range(10))");
        assert_round_trip!(r"[n * 2 for n in range(10)]");
        assert_round_trip!(r"{n * 2 for n in range(10)}");
        assert_round_trip!(r"{i: n * 2 for i, n in enumerate(range(10))}");
        assert_round_trip!(
            "class SchemaItem(NamedTuple):
    fields: ((\"property_key\", str),)"
        );
        assert_round_trip!(
            "def func():
    return (i := 1)"
        );
        assert_round_trip!("yield (i := 1)");
        assert_round_trip!("x = (i := 1)");
        assert_round_trip!("x += (i := 1)");

        // Type aliases
        assert_round_trip!(r"type Foo = int | str");
        assert_round_trip!(r"type Foo[T] = list[T]");
        assert_round_trip!(r"type Foo[*Ts] = ...");
        assert_round_trip!(r"type Foo[**P] = ...");
        assert_round_trip!(r"type Foo[T = int] = list[T]");
        assert_round_trip!(r"type Foo[*Ts = int] = ...");
        assert_round_trip!(r"type Foo[*Ts = *int] = ...");
        assert_round_trip!(r"type Foo[**P = int] = ...");
        assert_round_trip!(r"type Foo[T, U, *Ts, **P] = ...");
        // https://github.com/astral-sh/ruff/issues/6498
        assert_round_trip!(r"f(a=1, *args, **kwargs)");
        assert_round_trip!(r"f(*args, a=1, **kwargs)");
        assert_round_trip!(r"f(*args, a=1, *args2, **kwargs)");
        assert_round_trip!("class A(*args, a=2, *args2, **kwargs):\n    pass");
    }

    #[test]
    fn quote() {
        assert_round_trip!(r#""hello""#);
        assert_round_trip!(r"'hello'");
        assert_round_trip!(r"u'hello'");
        assert_round_trip!(r"r'hello'");
        assert_round_trip!(r"b'hello'");
        assert_round_trip!(r#"b"hello""#);
        assert_round_trip!(r"f'hello'");
        assert_round_trip!(r#"f"hello""#);
        assert_eq!(round_trip(r#"("abc" "def" "ghi")"#), r#""abc" "def" "ghi""#);
        assert_eq!(round_trip(r#""he\"llo""#), r#"'he"llo'"#);
        assert_eq!(round_trip(r#"b"he\"llo""#), r#"b'he"llo'"#);
        assert_eq!(round_trip(r#"f"abc{'def'}{1}""#), r#"f"abc{'def'}{1}""#);
        assert_round_trip!(r#"f'abc{"def"}{1}'"#);
    }

    /// test all of the valid string literal prefix and quote combinations from
    /// <https://docs.python.org/3/reference/lexical_analysis.html#string-and-bytes-literals>
    ///
    /// Note that the numeric ids on the input/output and quote fields prevent name conflicts from
    /// the `test_matrix` but are otherwise unnecessary
    #[test_case::test_matrix(
        [
            ("r", "r", 0),
            ("u", "u", 1),
            ("R", "R", 2),
            ("U", "u", 3), // case not tracked
            ("f", "f", 4),
            ("F", "f", 5),   // f case not tracked
            ("fr", "rf", 6), // r before f
            ("Fr", "rf", 7), // f case not tracked, r before f
            ("fR", "Rf", 8), // r before f
            ("FR", "Rf", 9), // f case not tracked, r before f
            ("rf", "rf", 10),
            ("rF", "rf", 11), // f case not tracked
            ("Rf", "Rf", 12),
            ("RF", "Rf", 13), // f case not tracked
            // bytestrings
            ("b", "b", 14),
            ("B", "b", 15),   // b case
            ("br", "rb", 16), // r before b
            ("Br", "rb", 17), // b case, r before b
            ("bR", "Rb", 18), // r before b
            ("BR", "Rb", 19), // b case, r before b
            ("rb", "rb", 20),
            ("rB", "rb", 21), // b case
            ("Rb", "Rb", 22),
            ("RB", "Rb", 23), // b case
        ],
        [("\"", 0), ("'",1), ("\"\"\"", 2), ("'''", 3)],
        ["hello", "{hello} {world}"]
    )]
    fn prefix_quotes((inp, out, _id): (&str, &str, u8), (quote, _id2): (&str, u8), base: &str) {
        let input = format!("{inp}{quote}{base}{quote}");
        let output = format!("{out}{quote}{base}{quote}");
        assert_eq!(round_trip(&input), output);
    }

    #[test]
    fn raw() {
        assert_round_trip!(r#"r"a\.b""#); // https://github.com/astral-sh/ruff/issues/9663
        assert_round_trip!(r#"R"a\.b""#);
    }

    #[test]
    fn float_literals_exact() {
        // stagecheck: every float reads back as the same value.
        assert_round_trip!("0.9999999999999999");
        assert_round_trip!("0.1");
        assert_round_trip!("1e-7");
        assert_round_trip!("1e16");
        assert_round_trip!("123456789.123");
        assert_round_trip!("5e-324");
        assert_round_trip!("1.7976931348623157e308");
        assert_eq!(round_trip("1e10"), "10000000000.0");
        assert_eq!(round_trip("1e999"), "1e309");
    }

    #[test]
    fn tuple_slice_bounds() {
        // stagecheck: a tuple as a slice bound keeps its parentheses.
        assert_round_trip!("a[(1, 2):3]");
        assert_round_trip!("a[:(a,)]");
        assert_round_trip!("a[::(1, 2)]");
        assert_round_trip!("a[1:2, (1, 2):3]");
        assert_round_trip!("a[lambda: 1:2]");
        assert_round_trip!("a[x if y else z:(v := 1)]");
        assert_round_trip!("a[1, 2:3]");
    }

    #[test]
    fn named_expr_tuple_value() {
        // stagecheck: a tuple as the value of `:=` keeps its parentheses.
        assert_round_trip!("(v := (1, 2))");
        assert_round_trip!("x = (v := (a, *b))");
        assert_round_trip!("f((v := ()))");
        assert_round_trip!("(v := (w := 1))");
        assert_round_trip!("(v := lambda: 1)");
        assert_round_trip!("(v := a if b else c)");
        assert_round_trip!("(v := (yield))");
    }

    #[test]
    fn class_patterns() {
        // stagecheck: class patterns are printed.
        assert_round_trip!(
            r#"match x:
    case [C()]:
        pass
    case C(1, b=2) | D(x, y=[z]):
        pass
    case a.b.C(E(), F(k=G(_)), k=H() as h, j={1: I()}):
        pass"#
        );
    }

    #[test]
    fn signed_and_complex_value_patterns() {
        // stagecheck: negative and complex literals in patterns take no parentheses.
        assert_round_trip!(
            r#"match x:
    case -1 | 1 + 2j | -1 - 2.5j | 'a' | a.b:
        pass
    case {-1: y, 1 - 1j: z, a.b: w, **rest}:
        pass
    case [-0.5, C(-1, k=-2j)]:
        pass"#
        );
    }

    #[test]
    fn nested_or_and_as_patterns() {
        // stagecheck: as-patterns and or-patterns inside or-patterns and as-patterns keep
        // their parentheses.
        assert_round_trip!(
            r#"match x:
    case (1 as y) | (2 as y):
        pass
    case (1 as y) as z:
        pass
    case (1 | 2) | 3:
        pass
    case 1 | (2 | 3) | (4 | 5 as y) as y:
        pass
    case 1 | 2 as y:
        pass
    case [1 | 2 as y, 3 as z] | {1: (2 as w) | (3 as w) as v}:
        pass
    case _ | y:
        pass"#
        );
    }

    #[test]
    fn self_documenting_fstring_text_verbatim() {
        // stagecheck: the debug text of `f"{expr=}"` is printed as written.
        assert_round_trip!(r#"f"{a+b=}""#);
        assert_round_trip!(r#"f"{a+b = }""#);
        assert_round_trip!(r#"f"{ {1} = }""#);
        assert_eq!(round_trip(r#"f"{ ( a ) =!r:>{ x+1 }}""#), r#"f"{ ( a ) =!r:>{x + 1}}""#);
        assert_round_trip!(r#"f"{x.y=:{w=}}""#);
        assert_round_trip!(r#"f"{0x10=}{1_0=}{1e3=}""#);
        assert_eq!(round_trip(r#"f"{ a+b }""#), r#"f"{a + b}""#);
    }

    #[test]
    fn with_tuple_item() {
        // stagecheck: a tuple as the only with item is not read back as several items.
        assert_round_trip!("with ((a, b)):\n    pass");
        assert_round_trip!("with (()):\n    pass");
        assert_round_trip!("with ((a, *b)):\n    pass");
        assert_round_trip!("with (a, b) as c:\n    pass");
        assert_round_trip!("with (a, b), c:\n    pass");
        assert_eq!(round_trip("with (a, b):\n    pass"), "with a, b:\n    pass");
    }

    #[test]
    fn fstring_literal_quote_escaped() {
        // stagecheck: the f-string's own quote in its literal text stays escaped.
        assert_round_trip!(r#"f'x{a}\''"#);
        assert_round_trip!(r#"f'\''"#);
        assert_round_trip!(r#"f"{a}\"""#);
        assert_round_trip!(r#"f'{a:\'>8}'"#);
        assert_round_trip!(r#"f'\\\'{a}'"#);
        assert_round_trip!(r#"f'{a}\'"'"#);
        assert_round_trip!(r#"f'''{a}\''''"#);
        assert_round_trip!(r#"f'\x00\'é\u200b'"#);
    }

    #[test]
    fn tuple_conditions() {
        // stagecheck: a tuple as the condition of if, elif, while keeps its parentheses.
        assert_round_trip!("if (a, b):\n    pass\nelif (c,):\n    pass");
        assert_round_trip!("while (a, *b):\n    pass");
        assert_round_trip!("if (v := 1):\n    pass");
        assert_round_trip!("while lambda: 1:\n    pass");
    }

    #[test]
    fn fstring_lambda() {
        // stagecheck: a lambda in a replacement field keeps its parentheses.
        assert_round_trip!(r#"f"{(lambda: 1)!r}""#);
        assert_round_trip!(r#"f"{(lambda p, *rest: p):>8}""#);
        assert_round_trip!(r#"f"{(a if b else lambda: 1)}""#);
        assert_round_trip!(r#"f"{(a, lambda: 1)}""#);
        assert_round_trip!(r#"f"{x:{(lambda: 1)}}""#);
        assert_eq!(round_trip(r#"f"{((lambda: 1), a)}""#), r#"f"{(lambda: 1, a)}""#);
        assert_eq!(round_trip(r#"f"{a or (lambda: 1)}""#), r#"f"{a or (lambda: 1)}""#);
    }

    /// stagecheck: printed with the source the tree was parsed from.
    fn round_trip_from_source(contents: &str) -> String {
        let indentation = Indentation::default();
        let module = parse_module(contents).unwrap();
        let mut generator = Generator::new(&indentation, LineEnding::default()).with_source(contents);
        generator.unparse_suite(module.suite());
        generator.generate()
    }

    #[test]
    fn literals_from_source() {
        // stagecheck: user literals (non-empty ranges) are printed as written when the
        // source is given: a lone surrogate is parsed as U+FFFD, which the value printed.
        assert_eq!(round_trip(r#"a = "\ud800""#), "a = \"\u{fffd}\"");
        for literal in [
            r#""\ud800" == "\udfff""#,
            r#""\ud83d\ude00""#,
            r#"b"\xff\x00" b'\x80' + r"\d" '\N{BULLET}' "\101""#,
            r#"f"\ud800{x}" f'{y!r:>{w}}' + t"\ud800{x}""#,
            "1_000 + 0x1F + 0o17 + 0b1 + 1e-7 + 1.e5 + 1e999 + 2J + 123456789012345678901234567890",
            "'''a\n  b\n\\ud800'''",
        ] {
            assert_eq!(round_trip_from_source(literal), literal);
        }
        // Implicit concatenation across lines: each part as written, on one line.
        assert_eq!(round_trip_from_source("x = ('a'\n     \"\\ud800\")"), "x = 'a' \"\\ud800\"");
        // An f-string whose tree is not its text's (an expression rewritten) is printed
        // from the tree; its literal elements as written.
        let contents = r#"f"\ud800{x}\x41{{""#;
        let mut module = parse_module(contents).unwrap().into_syntax();
        let ruff_python_ast::Stmt::Expr(e) = &mut module.body[0] else { panic!() };
        let ruff_python_ast::Expr::FString(f) = e.value.as_mut() else { panic!() };
        let ruff_python_ast::FStringPart::FString(part) = f.value.iter_mut().next().unwrap() else { panic!() };
        let ruff_python_ast::InterpolatedStringElement::Interpolation(i) = &mut part.elements[1] else { panic!() };
        let ruff_python_ast::Expr::Name(n) = i.expression.as_mut() else { panic!() };
        n.id = "y".into();
        let indentation = Indentation::default();
        let mut generator = Generator::new(&indentation, LineEnding::default()).with_source(contents);
        generator.unparse_suite(&module.body);
        assert_eq!(generator.generate(), r#"f"\ud800{y}\x41{{""#);
        // stagecheck: a generated literal element after one copied as written (a
        // lowered `=` form) keeps a short octal escape before it short: `\1` then `2=`.
        let contents = r#"f"\1{x}""#;
        let mut module = parse_module(contents).unwrap().into_syntax();
        let ruff_python_ast::Stmt::Expr(e) = &mut module.body[0] else { panic!() };
        let ruff_python_ast::Expr::FString(f) = e.value.as_mut() else { panic!() };
        let ruff_python_ast::FStringPart::FString(part) = f.value.iter_mut().next().unwrap() else { panic!() };
        let text = ruff_python_ast::InterpolatedStringLiteralElement {
            range: ruff_text_size::TextRange::default(),
            node_index: ruff_python_ast::AtomicNodeIndex::default(),
            value: "2=".into(),
        };
        let mut elements: Vec<_> = part.elements.iter().cloned().collect();
        elements.insert(1, ruff_python_ast::InterpolatedStringElement::Literal(text));
        part.elements = elements.into();
        let mut generator = Generator::new(&indentation, LineEnding::default()).with_source(contents);
        generator.unparse_suite(&module.body);
        assert_eq!(generator.generate(), r#"f"\1\x32={x}""#);
        for (text, short) in [("\\1", true), ("a\\17", true), ("\\123", false), ("\\\\1", false), ("\\\\\\7", true), ("12", false), ("\\1234", false)] {
            assert_eq!(super::ends_in_short_octal(text), short, "{text}");
        }
        // A node whose range does not hold its text is printed from its value.
        let module = parse_module("x = 'b'").unwrap();
        let mut generator = Generator::new(&indentation, LineEnding::default()).with_source("x = 1.5");
        generator.unparse_suite(module.suite());
        assert_eq!(generator.generate(), "x = 'b'");
    }

    #[test]
    fn self_documenting_fstring() {
        assert_round_trip!(r#"f"{ chr(65)  =   }""#);
        assert_round_trip!(r#"f"{ chr(65)  =   !s}""#);
        assert_round_trip!(r#"f"{ chr(65)  =   !r}""#);
        assert_round_trip!(r#"f"{ chr(65)  =   :#x}""#);
        assert_round_trip!(r#"f"{  ( chr(65)  ) = }""#);
        assert_round_trip!(r#"f"{a=!r:0.05f}""#);
        // https://github.com/astral-sh/ruff/issues/18742
        assert_eq!(
            round_trip(
                r#"
f"{1=
}"
"#
            ),
            r#"
f"{1=
}"
"#
            .trim()
        );
    }

    #[test]
    fn implicit_string_concatenation() {
        assert_round_trip!(r#""first" "second" "third""#);
        assert_round_trip!(r#"b"first" b"second" b"third""#);
        assert_round_trip!(r#""first" "second" f"third {var}""#);
    }

    #[test]
    fn indent() {
        assert_eq!(
            round_trip(
                r"
if True:
  pass
"
                .trim(),
            ),
            r"
if True:
    pass
"
            .trim()
            .replace('\n', LineEnding::default().as_str())
        );
    }

    #[test]
    fn set_indent() {
        assert_eq!(
            round_trip_with(
                &Indentation::new("    ".to_string()),
                LineEnding::default(),
                UnparseMode::Default,
                r"
if True:
  pass
"
                .trim(),
            ),
            r"
if True:
    pass
"
            .trim()
            .replace('\n', LineEnding::default().as_str())
        );
        assert_eq!(
            round_trip_with(
                &Indentation::new("  ".to_string()),
                LineEnding::default(),
                UnparseMode::Default,
                r"
if True:
  pass
"
                .trim(),
            ),
            r"
if True:
  pass
"
            .trim()
            .replace('\n', LineEnding::default().as_str())
        );
        assert_eq!(
            round_trip_with(
                &Indentation::new("\t".to_string()),
                LineEnding::default(),
                UnparseMode::Default,
                r"
if True:
  pass
"
                .trim(),
            ),
            r"
if True:
	pass
"
            .trim()
            .replace('\n', LineEnding::default().as_str())
        );
    }

    #[test]
    fn set_line_ending() {
        assert_eq!(
            round_trip_with(
                &Indentation::default(),
                LineEnding::Lf,
                UnparseMode::Default,
                "if True:\n    print(42)",
            ),
            "if True:\n    print(42)",
        );

        assert_eq!(
            round_trip_with(
                &Indentation::default(),
                LineEnding::CrLf,
                UnparseMode::Default,
                "if True:\n    print(42)",
            ),
            "if True:\r\n    print(42)",
        );

        assert_eq!(
            round_trip_with(
                &Indentation::default(),
                LineEnding::Cr,
                UnparseMode::Default,
                "if True:\n    print(42)",
            ),
            "if True:\r    print(42)",
        );
    }

    #[test_case::test_case(r#""'hello'""#, r#""'hello'""# ; "basic str ignored")]
    #[test_case::test_case(r#"b"'hello'""#, r#"b"'hello'""# ; "basic bytes ignored")]
    #[test_case::test_case(r#""hello""#, "'hello'" ; "basic str single")]
    #[test_case::test_case(r#"b"hello""#, "b'hello'" ; "basic bytes single")]
    #[test_case::test_case("'hello'", "'hello'"  ; "remain str single")]
    #[test_case::test_case(r#"x: list["str"]"#, "x: list['str']" ; "type ann single")]
    #[test_case::test_case(r#"f"hello""#, "f'hello'" ; "basic fstring single")]
    fn ast_unparse_quote(inp: &str, out: &str) {
        let got = round_trip_with(
            &Indentation::default(),
            LineEnding::default(),
            UnparseMode::AstUnparse,
            inp,
        );
        assert_eq!(got, out);
    }

    #[test_case::test_case("a,", "(a,)" ; "basic single")]
    #[test_case::test_case("a, b", "(a, b)" ; "basic multi")]
    #[test_case::test_case("x = a,", "x = (a,)" ; "basic assign single")]
    #[test_case::test_case("x = a, b", "x = (a, b)" ; "basic assign multi")]
    #[test_case::test_case("a, (b, c)", "(a, (b, c))" ; "nested")]
    fn ast_tuple_parentheses(inp: &str, out: &str) {
        let got = round_trip_with(
            &Indentation::default(),
            LineEnding::default(),
            UnparseMode::AstUnparse,
            inp,
        );
        assert_eq!(got, out);
    }
}
