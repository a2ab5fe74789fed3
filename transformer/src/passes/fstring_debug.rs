//! Before the passes: f-string `=` forms lowered to what they mean, so the
//! passes may rewrite their expressions like any other.
//!
//! `f"{expr = }"` prints the text between `{` and the conversion, format
//! spec or `}` exactly as written (`expr = `, whitespace and all), then the
//! value: `repr(value)` when there is neither conversion nor format spec,
//! `format(value, spec)` with a spec and no conversion, the conversion's
//! result (formatted by the spec) with `!s`, `!r` or `!a`. That is
//! `f"expr = {expr!r}"`, `f"expr = {expr:spec}"` and `f"expr = {expr!c:spec}"`,
//! which is how CPython's own `ast` holds the form (a `Constant` with the
//! text and a `FormattedValue` with `conversion='r'` unless a spec or
//! conversion was given), so the lowered f-string is the same tree to CPython.
//!
//! Lowering is needed because the printer prints an `=` form's expression
//! as its debug text (the source as written, which is what Python prints):
//! once a pass rewrote the expression (`f(2)` → `ag__.converted_call(f)(2)`)
//! the printed code would evaluate the original expression, and `convert`
//! refused it (construct `printer`). Lowered, the text is a literal element
//! (taken verbatim from the tree's debug text, newlines normalised as
//! Python's tokenizer does: `\r\n` and `\r` become `\n`) and the expression
//! an ordinary replacement field, printed from the rewritten tree.
//!
//! Every f-string of the function is lowered (nested ones, those in format
//! specs and in lambdas and comprehensions), rewritten or not: which ones a
//! pass will rewrite is not known before it runs, and the lowered form means
//! the same. In a format spec the text joins the literal before it (a spec
//! is one string to the parser, which reads adjacent text back as one
//! element); at the top level it stays a generated element of its own, so
//! the user's literal beside it is still printed as written
//! (`Generator::with_source`). t-strings are left alone: their `=` form keeps
//! the expression's text in the template's `Interpolation`, which the lowered
//! form would not.

use ruff_python_ast::visitor::transformer::{walk_f_string, Transformer};
use ruff_python_ast::{self as ast, ConversionFlag, InterpolatedStringElement, Stmt};

/// Lowers every f-string `=` form in `body`, at any depth.
pub fn run(body: &mut [Stmt]) {
    for stmt in body {
        Lower.visit_stmt(stmt);
    }
}

struct Lower;

impl Transformer for Lower {
    fn visit_f_string(&self, f_string: &mut ast::FString) {
        lower(&mut f_string.elements, false);
        // Then the expressions inside (nested f-strings).
        walk_f_string(self, f_string);
    }
}

/// Lowers the `=` forms among `elements` (and in their format specs);
/// `in_spec` when `elements` is a format spec.
fn lower(elements: &mut ast::InterpolatedStringElements, in_spec: bool) {
    for field in elements.iter_mut().filter_map(InterpolatedStringElement::as_interpolation_mut) {
        if let Some(spec) = &mut field.format_spec {
            lower(&mut spec.elements, true);
        }
    }
    if !elements.interpolations().any(|field| field.debug_text.is_some()) {
        return;
    }
    let mut after: Vec<InterpolatedStringElement> = Vec::with_capacity(elements.len() + 1);
    for element in elements.iter() {
        let InterpolatedStringElement::Interpolation(field) = element else {
            after.push(element.clone());
            continue;
        };
        let mut field = field.clone();
        if let Some(debug) = field.debug_text.take() {
            let text = debug.as_str().replace("\r\n", "\n").replace('\r', "\n");
            push_text(&mut after, text, in_spec);
            if field.conversion == ConversionFlag::None && field.format_spec.is_none() {
                field.conversion = ConversionFlag::Repr;
            }
        }
        after.push(InterpolatedStringElement::Interpolation(field));
    }
    *elements = after.into();
}

/// Appends literal `text`: a generated element of its own (empty range, so
/// printed from its value), or in a format spec joined to the literal before.
fn push_text(elements: &mut Vec<InterpolatedStringElement>, text: String, in_spec: bool) {
    if in_spec {
        if let Some(InterpolatedStringElement::Literal(last)) = elements.last_mut() {
            // Printed from its value now: its range no longer holds its text.
            last.value = format!("{}{text}", last.value).into_boxed_str();
            last.range = Default::default();
            return;
        }
    }
    elements.push(InterpolatedStringElement::Literal(ast::InterpolatedStringLiteralElement {
        range: Default::default(),
        node_index: Default::default(),
        value: text.into_boxed_str(),
    }));
}
