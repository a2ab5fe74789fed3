//! What the passes share while converting one function.

use crate::analysis::scopes::Scope;
use crate::namer::Namer;
use ruff_python_ast::Expr;
use ruff_text_size::TextRange;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Every name of the runtime module (`stagecheck.ag`, staging/runtime/)
/// that converted code reads as `ag__.<name>`: [`FunctionContext::op`]
/// emits no other, and tests/operators.rs finds each in the runtime.
pub const OPERATORS: &[&str] = &[
    "and_",
    "or_",
    "not_",
    "compare",
    "assert_stmt",
    "converted_call",
    "if_exp",
    "if_stmt",
    "while_stmt",
    "for_stmt",
    "no_state",
    "get_item",
    "set_item",
    "ld",
    "ldu_all",
    "Undefined",
];

pub struct FunctionContext<'n> {
    pub namer: &'n mut Namer,
    /// The name the runtime operators are bound to in the module (`ag__`).
    pub ag: String,
    /// The function's scope, as written.
    pub scope: Scope,
    /// Reads and `del`s of locals that may find them unbound (original ranges).
    pub unbound: HashSet<TextRange>,
    /// Whether statements are converted (not in generators and coroutines,
    /// where moving code into nested functions would change its meaning).
    pub convert_statements: bool,
    /// Whether expressions may move into lambdas (not where the function
    /// reads its own namespace: a lambda has another).
    pub thunks: bool,
    /// Conditions a loop must also satisfy to go on (`not break_`,
    /// `not do_return`), by the loop statement's range; set by the break and
    /// return passes, consumed by control_flow (AutoGraph's `extra_test`).
    pub extra_tests: HashMap<TextRange, Vec<String>>,
    /// Whether the function is nested in another function: a name it
    /// neither binds nor declares may then be that function's variable
    /// rather than a global (pass 13 needs to know which).
    pub enclosed: bool,
    /// Whether pass 11 converted a loop here: only then does pass 13 make
    /// fewer functions (outside loops each is made once per call anyway).
    pub loops: bool,
}

impl FunctionContext<'_> {
    /// `ag__.<op>`.
    pub fn op(&self, name: &str) -> Expr {
        assert!(OPERATORS.contains(&name), "ag__.{name} is not in context::OPERATORS");
        crate::ast_build::attribute(crate::ast_build::name(&self.ag), name)
    }

    /// True when `e` is `ag__.<something>` (a call the converter generated).
    pub fn is_op(&self, e: &Expr) -> bool {
        matches!(e, Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == self.ag))
    }

    /// True when `e` is `ag__.<name>`.
    pub fn is_op_named(&self, e: &Expr, name: &str) -> bool {
        self.is_op(e) && matches!(e, Expr::Attribute(a) if a.attr.as_str() == name)
    }
}
