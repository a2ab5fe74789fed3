//! `Config`: what one program may contain (swarm testing).
//!
//! Each program draws its own `Config` (it derives `Arbitrary`), so most
//! programs leave some constructs out and weigh the rest differently: a bug
//! that needs, say, many `continue`s and no `try` is found far sooner than
//! with one fixed mix. `generate` clamps the config first (`clamped`), so any
//! value is usable, including all-zero bytes (everything off, depth 1).

use arbitrary::Arbitrary;
use serde::{Deserialize, Serialize};

/// Which constructs a program may use, how deep and how many, and how often.
/// Weights are groups of the construct table (`table.rs` says which group each
/// construct takes its weight from); a weight of 0 turns its group off, but the
/// simplest statements and expressions keep a weight of at least 1.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// `while` loops (plain family).
    pub allow_while: bool,
    /// `for` loops (plain family).
    pub allow_for: bool,
    /// `break` (both families; staged `break` in the tensor family).
    pub allow_break: bool,
    /// `continue` (both families).
    pub allow_continue: bool,
    /// `return` inside loops, not only at the function's end or in an `if`.
    pub allow_return_in_loop: bool,
    /// `try`/`except`/`else`/`finally`.
    pub allow_try: bool,
    /// Writes through `global` and `nonlocal` declarations.
    pub allow_global_nonlocal: bool,
    /// Nested functions, closures (late binding included).
    pub allow_closures: bool,
    /// Generator functions (`yield`, `yield from`) consumed by `list`/`sum`.
    pub allow_generators: bool,
    /// List, set and dict comprehensions and generator expressions.
    pub allow_comprehensions: bool,
    /// Recursive functions, bounded by a depth argument and by fuel.
    pub allow_recursion: bool,
    /// `raise` of built-in and user exceptions.
    pub allow_raise: bool,
    /// Paths leaving a local unbound, then a read of it under `except NameError`.
    pub allow_unbound_paths: bool,
    /// Calls with side effects (`note(x)` appends to a log) in conditions and operands.
    pub allow_side_effects: bool,
    /// `del` of names and list items.
    pub allow_del: bool,
    /// Staged `while`/`for` loops (tensor family).
    pub allow_staged_loops: bool,
    /// Staged functions calling other staged functions (tensor family).
    pub allow_nested_calls: bool,
    /// Python hyper-parameters and Python globals read by staged functions (tensor family).
    pub allow_hyperparams: bool,
    /// A plain helper returning the global, called by staged functions (tensor family).
    pub allow_guard_helpers: bool,
    /// Class and instance attributes read by staged functions, set between calls (tensor family).
    pub allow_guard_attrs: bool,
    /// Dict and list items and a list's `len` read by staged functions, changed between calls (tensor family).
    pub allow_guard_containers: bool,
    /// `raise` and raising lazy operands inside staged control flow (tensor family).
    pub allow_staged_raise: bool,
    /// Reads of names unbound on a staged path: UnboundLocalError, NameError (tensor family).
    pub allow_staged_unbound: bool,
    /// int64, float64 and bool tensors besides int32 and float32 (tensor family).
    pub allow_wide_dtypes: bool,
    /// NaN, ±inf, ±0 and float overflow in tensors and arguments (tensor family).
    pub allow_special_values: bool,
    /// Integer tensor arithmetic past int32/int64 limits: wraps (tensor family).
    pub allow_int_overflow: bool,
    /// Division by a tensor that may hold zeros: inf/NaN, or ZeroDivisionError caught (tensor family).
    pub allow_div_zero: bool,
    /// `&`, `|`, `^`, `~` of int and bool tensors (tensor family).
    pub allow_bitwise: bool,
    /// Slices of tensors: `v[a:b]`, `v[::-1]`, `m[:, j]` (tensor family).
    pub allow_slicing: bool,
    /// Binary ops of tensors of different shapes that broadcast (tensor family).
    pub allow_broadcast: bool,
    /// A staged function called with tensors of different shapes or dtypes: retraces (tensor family).
    pub allow_retrace: bool,
    /// Module-level tensors read by staged functions, rebound between calls (tensor family).
    pub allow_captures: bool,
    /// Staged functions made by a plain factory function, reading its locals (tensor family).
    pub allow_staged_closures: bool,
    /// A staged function calling itself on a tensor counter: call nodes (tensor family).
    pub allow_staged_recursion: bool,
    /// `sc.print` of results (tensor family; outside staged functions).
    pub allow_sc_print: bool,
    /// `with sc.device("gpu"):` around calls: graphs on the GPU (tensor family).
    pub allow_device: bool,
    /// `bool()`/`int()`/`float()` of scalars, `.shape`/`.dtype` (tensor family).
    pub allow_conversions: bool,
    /// `print`/`sc.print` inside staged functions: print nodes (tensor family).
    pub allow_staged_print: bool,
    /// `assert` of a tensor condition inside staged functions (tensor family).
    pub allow_staged_assert: bool,
    /// Module-level `sc.Variable`s assigned and read in staged code (tensor family).
    pub allow_variables: bool,
    /// `sc.py_function` of a Python function in staged code (tensor family).
    pub allow_py_function: bool,
    /// `sc.GradientTape` in staged functions: gradients of losses through staged ifs, loops, calls (tensor family).
    pub allow_gradients: bool,
    /// Python lists appended and popped in staged loops, stacked after (tensor family).
    pub allow_staged_lists: bool,
    /// Classes: methods, inheritance and `super`, properties, class-body scoping.
    pub allow_classes: bool,
    /// Classes with dunder operators (`__iadd__`, `__eq__`, `__bool__`, `__len__`, `__getitem__`/`__setitem__`, `__iter__`, ...).
    pub allow_dunders: bool,
    /// `with` over context managers that suppress, re-raise or raise in `__exit__`.
    pub allow_with: bool,
    /// String methods, slicing, f-strings (format specs, `=`), str subclasses.
    pub allow_strings: bool,
    /// Floats: `/`, `**`, `math`, -0.0, inf, nan.
    pub allow_floats: bool,
    /// Tuples and unpacking: nested, starred, in `for` targets, swaps.
    pub allow_unpacking: bool,
    /// Dicts (literals, methods, iteration order) and sets.
    pub allow_dicts_sets: bool,
    /// Subscript, slice and attribute assignment, augmented too.
    pub allow_item_assign: bool,
    /// `match`: literal, capture, sequence, mapping and class patterns, guards.
    pub allow_match: bool,
    /// `:=`, in conditions and in comprehensions.
    pub allow_walrus: bool,
    /// `assert` with messages, failing ones caught.
    pub allow_assert: bool,
    /// `*args`, `**kwargs`, keyword-only parameters, defaults (a mutable one too).
    pub allow_signatures: bool,
    /// Function and class decorators.
    pub allow_decorators: bool,
    /// `is`/`is not` and `isinstance`.
    pub allow_identity: bool,
    /// `return`/`break`/`continue` inside `finally`.
    pub allow_finally_exits: bool,
    /// Generators driven by `send`, `throw` and `close`.
    pub allow_gen_protocol: bool,
    /// Exception chaining: `raise ... from`, implicit context.
    pub allow_raise_from: bool,
    /// Integers far beyond 64 bits.
    pub allow_big_ints: bool,
    /// Mutually recursive functions.
    pub allow_mutual_recursion: bool,
    /// Names bound inside a converted block and read after it: an `import`, a
    /// `match` capture, a walrus in a comprehension, an annotated local, a
    /// block of only a declaration, `+=`/`del` of a maybe-unbound local, the
    /// return a `with` cancels; in the tensor family a generator lambda and a
    /// name dead after a staged `if`.
    pub allow_block_bindings: bool,
    /// Functions reading their namespace (`locals()`, `vars()`, `dir()`) and
    /// functions with docstrings.
    pub allow_namespace: bool,
    /// Products past the family's small shapes: wide and tall, batched
    /// (rank 3), and onto a temporary operand (tensor family).
    pub allow_big_matmul: bool,
    /// Nesting of compound statements: 1..=4 after clamping.
    pub max_depth: u8,
    /// Statements per block: 1..=6 after clamping.
    pub max_stmts: u8,
    /// Top-level functions (entry points in the tensor family): 1..=4 (tensor: 1..=3).
    pub max_functions: u8,
    /// Nesting of compound expressions: 1..=3 after clamping.
    pub max_expr_depth: u8,
    /// Assignments, prints, literals, names (never below 1).
    pub weight_simple: u8,
    /// `if`, ternaries, `and`/`or`, comparisons, `break`/`continue`/`return`.
    pub weight_control: u8,
    /// Loops (both families).
    pub weight_loops: u8,
    /// `try`, `raise`, `del`, unbound reads.
    pub weight_exceptions: u8,
    /// `global`, `nonlocal`, closures.
    pub weight_scoping: u8,
    /// Calls, recursion, generators, side effects, nested staged calls.
    pub weight_calls: u8,
    /// Arithmetic, subscripts, comprehensions; tensor ops.
    pub weight_exprs: u8,
}

/// The largest weight after clamping.
pub const MAX_WEIGHT: u8 = 7;

impl Default for Config {
    /// Everything enabled, middling sizes, equal weights.
    fn default() -> Self {
        Config {
            allow_while: true,
            allow_for: true,
            allow_break: true,
            allow_continue: true,
            allow_return_in_loop: true,
            allow_try: true,
            allow_global_nonlocal: true,
            allow_closures: true,
            allow_generators: true,
            allow_comprehensions: true,
            allow_recursion: true,
            allow_raise: true,
            allow_unbound_paths: true,
            allow_side_effects: true,
            allow_del: true,
            allow_staged_loops: true,
            allow_nested_calls: true,
            allow_hyperparams: true,
            allow_guard_helpers: true,
            allow_guard_attrs: true,
            allow_guard_containers: true,
            allow_staged_raise: true,
            allow_staged_unbound: true,
            allow_wide_dtypes: true,
            allow_special_values: true,
            allow_int_overflow: true,
            allow_div_zero: true,
            allow_bitwise: true,
            allow_slicing: true,
            allow_broadcast: true,
            allow_retrace: true,
            allow_captures: true,
            allow_staged_closures: true,
            allow_staged_recursion: true,
            allow_sc_print: true,
            allow_device: true,
            allow_conversions: true,
            allow_staged_print: true,
            allow_staged_assert: true,
            allow_variables: true,
            allow_py_function: true,
            allow_gradients: true,
            allow_staged_lists: true,
            allow_classes: true,
            allow_dunders: true,
            allow_with: true,
            allow_strings: true,
            allow_floats: true,
            allow_unpacking: true,
            allow_dicts_sets: true,
            allow_item_assign: true,
            allow_match: true,
            allow_walrus: true,
            allow_assert: true,
            allow_signatures: true,
            allow_decorators: true,
            allow_identity: true,
            allow_finally_exits: true,
            allow_gen_protocol: true,
            allow_raise_from: true,
            allow_big_ints: true,
            allow_mutual_recursion: true,
            allow_block_bindings: true,
            allow_namespace: true,
            allow_big_matmul: true,
            max_depth: 3,
            max_stmts: 4,
            max_functions: 3,
            max_expr_depth: 2,
            weight_simple: 4,
            weight_control: 4,
            weight_loops: 4,
            weight_exceptions: 4,
            weight_scoping: 4,
            weight_calls: 4,
            weight_exprs: 4,
        }
    }
}

impl Config {
    /// The config with every number brought into its range (`generate` uses
    /// this, so callers may pass any `Config`). Idempotent.
    pub fn clamped(&self) -> Config {
        fn range(v: u8, lo: u8, hi: u8) -> u8 {
            if (lo..=hi).contains(&v) {
                v
            } else {
                lo + v % (hi - lo + 1)
            }
        }
        let mut c = self.clone();
        c.max_depth = range(c.max_depth, 1, 4);
        c.max_stmts = range(c.max_stmts, 1, 6);
        c.max_functions = range(c.max_functions, 1, 4);
        c.max_expr_depth = range(c.max_expr_depth, 1, 3);
        for w in [
            &mut c.weight_simple,
            &mut c.weight_control,
            &mut c.weight_loops,
            &mut c.weight_exceptions,
            &mut c.weight_scoping,
            &mut c.weight_calls,
            &mut c.weight_exprs,
        ] {
            *w = range(*w, 0, MAX_WEIGHT);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamping_is_idempotent_and_in_range() {
        for v in [0u8, 1, 3, 4, 5, 7, 8, 200, 255] {
            let c = Config { max_depth: v, max_stmts: v, weight_loops: v, ..Config::default() };
            let k = c.clamped();
            assert!((1..=4).contains(&k.max_depth));
            assert!((1..=6).contains(&k.max_stmts));
            assert!(k.weight_loops <= MAX_WEIGHT);
            assert_eq!(k.clamped(), k);
        }
        assert_eq!(Config::default().clamped(), Config::default());
    }
}
