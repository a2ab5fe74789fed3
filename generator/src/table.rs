//! The one table of constructs. Each row: a stable name (reported in
//! `Program::constructs`, counted by the coverage test), its family, whether
//! it can go here (`can`: context and wanted type), its weight under a
//! `Config` (its swarm switch and weight group), and how to build it.
//!
//! Statements write their lines and return an empty string; expressions
//! return their text, always an atom (a name, a literal, a call or a
//! parenthesised expression), so builders never think about precedence.
//!
//! Rows are ordered simplest first: when the input bytes run out,
//! `Unstructured` yields zeros, which pick the first row that fits (an
//! assignment of a literal, a literal, a comparison of literals), so every
//! byte string gives a small valid program.

use crate::config::Config;
use crate::gen::Gen;
use crate::tensor_grad as tg;
use crate::types::TTy;
use crate::{
    plain, plain_bind as pb, plain_builtins as pbi, plain_data as pd, plain_expr, plain_objects as po, tensor, tensor_expr, Family,
};
use crate::{
    tensor_calls as tc, tensor_host as th, tensor_lists as tl, tensor_matmul as tm, tensor_python as tp, tensor_raise as tr,
    tensor_values as tv,
};
use arbitrary::{Result, Unstructured};

/// What the generator wants at this point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// A statement (written, not returned).
    Stmt,
    /// A Python int expression (bools included).
    Int,
    /// A Python list-of-ints expression.
    List,
    /// A Python condition.
    Cond,
    /// A tensor expression of this type.
    Tensor(TTy),
    /// A scalar bool tensor: the test of a staged `if`/`while`.
    TCond,
}

type CanFn = fn(&Gen, Want) -> bool;
type WeightFn = fn(&Config) -> u32;
type BuildFn = fn(&mut Gen, &mut Unstructured, Want) -> Result<String>;

/// One row of the table.
pub struct Construct {
    pub name: &'static str,
    pub family: Family,
    pub(crate) can: CanFn,
    pub(crate) weight: WeightFn,
    pub(crate) build: BuildFn,
}

fn gate(on: bool, w: u8) -> u32 {
    if on {
        w as u32
    } else {
        0
    }
}

/// A row of the plain family's wider Python (and the tensor family's raises):
/// half its group's weight, at least 1.
fn half(on: bool, w: u8) -> u32 {
    if on && w > 0 {
        (w as u32).div_ceil(2)
    } else {
        0
    }
}

fn stmt_nest(g: &Gen, w: Want) -> bool {
    w == Want::Stmt && g.can_nest_stmt()
}

fn cond_nest(g: &Gen, w: Want) -> bool {
    w == Want::Cond && g.can_nest_expr()
}

fn int_nest(g: &Gen, w: Want) -> bool {
    w == Want::Int && g.can_nest_expr()
}

fn simple(c: &Config) -> u32 {
    1 + c.weight_simple as u32
}

const fn row(name: &'static str, family: Family, can: CanFn, weight: WeightFn, build: BuildFn) -> Construct {
    Construct { name, family, can, weight, build }
}

use Family::{Plain as P, Tensor as T};

/// Every construct of both families.
#[rustfmt::skip]
pub static TABLE: &[Construct] = &[
    // ---- plain family: statements -------------------------------------
    row("assign", P, plain::can_assign, simple, plain::assign),
    row("print", P, |_, w| w == Want::Stmt, simple, plain::print),
    row("augassign", P, plain::can_augassign, simple, plain::augassign),
    row("list_append", P, plain::can_list_append, |c| c.weight_exprs as u32, plain::list_append),
    row("expr_stmt", P, |g, w| w == Want::Stmt && plain::has_calls(g), |c| c.weight_calls as u32, plain::expr_stmt),
    row("if", P, |g, w| w == Want::Stmt && g.can_nest_stmt(), |c| c.weight_control as u32, plain::if_stmt),
    row("while", P, |g, w| w == Want::Stmt && g.can_nest_stmt(), |c| gate(c.allow_while, c.weight_loops), plain::while_stmt),
    row("for", P, |g, w| w == Want::Stmt && g.can_nest_stmt(), |c| gate(c.allow_for, c.weight_loops), plain::for_stmt),
    row("break", P, plain::can_exit_loop, |c| gate(c.allow_break, c.weight_control), plain::break_stmt),
    row("continue", P, plain::can_exit_loop, |c| gate(c.allow_continue, c.weight_control), plain::continue_stmt),
    row("return", P, plain::can_return, |c| c.weight_control as u32, plain::return_stmt),
    row("try_finally", P, |g, w| w == Want::Stmt && g.can_nest_stmt(), |c| gate(c.allow_try, c.weight_exceptions), plain::try_stmt),
    row("raise", P, plain::can_raise, |c| gate(c.allow_raise, c.weight_exceptions), plain::raise_stmt),
    row("del", P, |g, w| w == Want::Stmt && g.can_nest_stmt(), |c| gate(c.allow_del, c.weight_exceptions), plain::del_stmt),
    row("unbound_read", P, |g, w| w == Want::Stmt && g.can_nest_stmt(), |c| gate(c.allow_unbound_paths, c.weight_exceptions), plain::unbound_read),
    row("global", P, plain::can_global, |c| gate(c.allow_global_nonlocal, c.weight_scoping), plain::global_stmt),
    row("nonlocal", P, plain::can_nonlocal, |c| gate(c.allow_global_nonlocal, 1 + c.weight_scoping), plain::nonlocal_stmt),
    row("closure", P, plain::can_def, |c| gate(c.allow_closures, c.weight_scoping), plain::closure),
    row("closure_late_binding", P, plain::can_def, |c| gate(c.allow_closures, c.weight_scoping), plain::late_binding),
    row("qualname", P, plain::can_def, |c| gate(c.allow_closures && c.allow_try, c.weight_scoping), plain::qualname),
    row("generator", P, plain::can_def, |c| gate(c.allow_generators, c.weight_calls), plain::generator),
    row("yield", P, plain::can_yield, |c| 1 + c.weight_calls as u32, plain::yield_stmt),
    row("loop_else", P, never, |c| gate(c.allow_for || c.allow_while, c.weight_loops), unreachable_build),
    row("recursion", P, plain::can_def, |c| gate(c.allow_recursion, c.weight_calls), plain::recursion),
    // ---- plain family: expressions ------------------------------------
    row("literal", P, |_, w| w == Want::Int, simple, plain_expr::literal),
    row("name", P, plain_expr::can_name, |c| 2 * simple(c), plain_expr::name),
    row("list_literal", P, |_, w| w == Want::List, simple, plain_expr::list_literal),
    row("compare", P, |_, w| w == Want::Cond, simple, plain_expr::compare),
    row("arith", P, plain_expr::can_arith, |c| c.weight_exprs as u32, plain_expr::arith),
    row("unary", P, |g, w| w == Want::Int && g.can_nest_expr(), |c| c.weight_exprs as u32, plain_expr::unary),
    row("and_or", P, plain_expr::can_and_or, |c| c.weight_control as u32, plain_expr::and_or),
    row("not", P, |g, w| w == Want::Cond && g.can_nest_expr(), |c| c.weight_control as u32, plain_expr::not),
    row("ternary", P, plain_expr::can_ternary, |c| c.weight_control as u32, plain_expr::ternary),
    row("chained_compare", P, |g, w| w == Want::Cond && g.can_nest_expr(), |c| c.weight_control as u32, plain_expr::chained_compare),
    row("membership", P, plain_expr::can_membership, |c| c.weight_exprs as u32, plain_expr::membership),
    row("call", P, plain_expr::can_call, |c| 2 * c.weight_calls as u32, plain_expr::call),
    row("side_effect_in_condition", P, |g, w| w == Want::Cond && g.can_nest_expr(), |c| gate(c.allow_side_effects, c.weight_calls), plain_expr::side_effect_in_condition),
    row("side_effect_operand", P, |g, w| w == Want::Int && g.can_nest_expr(), |c| gate(c.allow_side_effects, c.weight_calls), plain_expr::side_effect_operand),
    row("subscript", P, plain_expr::can_subscript, |c| c.weight_exprs as u32, plain_expr::subscript),
    row("len", P, plain_expr::can_len, |c| c.weight_exprs as u32, plain_expr::len),
    row("comprehension", P, plain_expr::can_comprehension, |c| gate(c.allow_comprehensions, c.weight_exprs), plain_expr::comprehension),
    // ---- plain family: classes, objects, calls (plain_objects.rs) ------
    row("class", P, po::can_big, |c| half(c.allow_classes, c.weight_scoping), po::class),
    row("inheritance_super", P, po::can_big, |c| half(c.allow_classes, c.weight_scoping), po::inheritance),
    row("property", P, po::can_big, |c| half(c.allow_classes, c.weight_scoping), po::property),
    row("class_body_scoping", P, po::can_big, |c| half(c.allow_classes, c.weight_scoping), po::class_body_scoping),
    row("class_decorator", P, po::can_big, |c| half(c.allow_decorators && c.allow_classes, c.weight_scoping), po::class_decorator),
    row("dunder_arith", P, po::can_big, |c| half(c.allow_dunders, c.weight_exprs), po::dunder_arith),
    row("dunder_container", P, po::can_big, |c| half(c.allow_dunders, c.weight_exprs), po::dunder_container),
    row("attribute_assign", P, po::can_obj, |c| gate(c.allow_item_assign, c.weight_exprs), po::attribute_assign),
    row("attribute_read", P, po::can_attribute_read, |c| c.weight_exprs as u32, po::attribute_read),
    row("with", P, stmt_nest, |c| gate(c.allow_with, c.weight_exceptions), po::with_stmt),
    row("decorator", P, po::can_big, |c| half(c.allow_decorators, c.weight_calls), po::decorator),
    row("signature", P, po::can_big, |c| half(c.allow_signatures, c.weight_calls), po::signature),
    row("mutable_default", P, po::can_big, |c| half(c.allow_signatures, c.weight_calls), po::mutable_default),
    row("generator_protocol", P, po::can_big, |c| half(c.allow_gen_protocol, c.weight_calls), po::gen_protocol),
    row("mutual_recursion", P, po::can_big, |c| half(c.allow_mutual_recursion, c.weight_calls), po::mutual_recursion),
    // ---- plain family: data and control (plain_data.rs) ----------------
    row("fstring", P, |_, w| w == Want::Stmt, |c| half(c.allow_strings, c.weight_simple), pd::fstring),
    row("string_methods", P, int_nest, |c| half(c.allow_strings, c.weight_exprs), pd::string_methods),
    row("str_subclass", P, po::can_big, |c| half(c.allow_strings && c.allow_classes, c.weight_exprs), pd::str_subclass),
    row("float_arith", P, |_, w| w == Want::Stmt, |c| half(c.allow_floats, c.weight_exprs), pd::float_arith),
    row("float_special", P, |_, w| w == Want::Stmt, |c| half(c.allow_floats, c.weight_exprs), pd::float_special),
    row("tuple_unpack", P, |_, w| w == Want::Stmt, |c| gate(c.allow_unpacking, c.weight_simple), pd::tuple_unpack),
    row("starred_unpack", P, |_, w| w == Want::Stmt, |c| half(c.allow_unpacking, c.weight_simple), pd::starred_unpack),
    row("for_unpack", P, stmt_nest, |c| gate(c.allow_unpacking, c.weight_loops), pd::for_unpack),
    row("dict_ops", P, stmt_nest, |c| half(c.allow_dicts_sets, c.weight_exprs), pd::dict_ops),
    row("set_ops", P, |g, w| matches!(w, Want::Int | Want::List | Want::Cond) && g.can_nest_expr(), |c| half(c.allow_dicts_sets, c.weight_exprs), pd::set_ops),
    row("subscript_assign", P, pd::can_item_assign, |c| gate(c.allow_item_assign, c.weight_exprs), pd::subscript_assign),
    row("subscript_augassign", P, pd::can_item_assign, |c| gate(c.allow_item_assign, c.weight_exprs), pd::subscript_augassign),
    row("slice_assign", P, pd::can_item_assign, |c| half(c.allow_item_assign, c.weight_exprs), pd::slice_assign),
    row("match_value", P, stmt_nest, |c| half(c.allow_match, c.weight_control), pd::match_value),
    row("match_structure", P, stmt_nest, |c| half(c.allow_match, c.weight_control), pd::match_structure),
    row("walrus", P, stmt_nest, |c| half(c.allow_walrus, c.weight_control), pd::walrus),
    row("walrus_comprehension", P, |_, w| w == Want::Stmt, |c| half(c.allow_walrus && c.allow_comprehensions, c.weight_exprs), pd::walrus_comprehension),
    row("assert", P, |_, w| w == Want::Stmt, |c| half(c.allow_assert, c.weight_exceptions), pd::assert_stmt),
    row("raise_from", P, stmt_nest, |c| half(c.allow_raise_from, c.weight_exceptions), pd::raise_from),
    row("finally_exit", P, pd::can_finally_exit, |c| gate(c.allow_finally_exits && c.allow_try, c.weight_exceptions), pd::finally_exit),
    row("big_int", P, int_nest, |c| half(c.allow_big_ints, c.weight_exprs), pd::big_int),
    row("identity", P, cond_nest, |c| half(c.allow_identity, c.weight_exprs), pd::identity),
    row("isinstance", P, cond_nest, |c| half(c.allow_identity, c.weight_exprs), pd::isinstance),
    // ---- plain family: what a tracing JIT emulates (plain_builtins.rs) ---
    row("builtin_forms", P, |_, w| w == Want::Stmt, |c| half(c.allow_strings, c.weight_exprs), pbi::builtin_forms),
    row("builtin_errors", P, stmt_nest, |c| half(c.allow_try, c.weight_exceptions), pbi::builtin_errors),
    row("set_order", P, |_, w| w == Want::Stmt, |c| half(c.allow_dicts_sets, c.weight_exprs), pbi::set_order),
    row("function_attrs", P, stmt_nest, |c| half(c.allow_item_assign, c.weight_scoping), pbi::function_attrs),
    row("global_recreated", P, pb::can_in_fn, |c| half(c.allow_del && c.allow_global_nonlocal, c.weight_scoping), pbi::global_recreated),
    // ---- plain family: bound in a converted block, read after (plain_bind.rs)
    row("import_in_block", P, pb::can_in_fn, |c| half(c.allow_block_bindings, c.weight_scoping), pb::import_in_block),
    row("capture_after_block", P, pb::can_in_fn, |c| half(c.allow_block_bindings && c.allow_match, c.weight_control), pb::capture_after_block),
    row("walrus_after_block", P, pb::can_in_fn, |c| half(c.allow_block_bindings && c.allow_walrus, c.weight_exprs), pb::walrus_after_block),
    row("annotated_local", P, pb::can_in_fn, |c| half(c.allow_block_bindings, c.weight_simple), pb::annotated_local),
    row("declaration_block", P, pb::can_in_fn, |c| gate(c.allow_block_bindings && c.allow_global_nonlocal, c.weight_scoping), pb::declaration_block),
    row("unbound_update", P, pb::can_in_fn, |c| half(c.allow_block_bindings && c.allow_unbound_paths, c.weight_exceptions), pb::unbound_update),
    row("with_cancelled_exit", P, pb::can_with_exit, |c| gate(c.allow_block_bindings, c.weight_exceptions), pb::with_cancelled_exit),
    row("namespace_and_doc", P, pb::can_nested_def, |c| half(c.allow_namespace, c.weight_calls), pb::namespace_and_doc),
    // ---- tensor family: statements ------------------------------------
    row("tensor_assign", T, tensor::can_assign, simple, tensor::assign),
    row("staged_if", T, tensor::can_compound, |c| 1 + c.weight_control as u32, tensor::staged_if),
    row("staged_while", T, tensor::can_compound, |c| gate(c.allow_staged_loops, c.weight_loops), tensor::staged_while),
    row("staged_for_tensor", T, tensor::can_for_tensor, |c| gate(c.allow_staged_loops, c.weight_loops), tensor::staged_for_tensor),
    row("staged_for_range", T, tensor::can_compound, |c| gate(c.allow_staged_loops, c.weight_loops), tensor::staged_for_range),
    row("loop_carried_tensors", T, tensor::can_compound, |c| gate(c.allow_staged_loops, c.weight_loops), tensor::loop_carried),
    row("staged_break", T, tensor::can_exit, |c| gate(c.allow_break, 1 + c.weight_control), tensor::staged_break),
    row("staged_continue", T, tensor::can_exit, |c| gate(c.allow_continue, 1 + c.weight_control), tensor::staged_continue),
    row("python_hyperparam", T, tensor::can_python_hyper, |c| gate(c.allow_hyperparams, 1 + c.weight_control), tensor::python_hyper),
    row("python_loop_bound", T, tp::can_loop_bound, |c| gate(c.allow_hyperparams, 1 + c.weight_loops), tp::loop_bound),
    row("staged_raise", T, tr::can_raise, |c| half(c.allow_staged_raise, c.weight_exceptions), tr::raise_stmt),
    row("staged_unbound_branch", T, tr::can_unbound_branch, |c| half(c.allow_staged_unbound, c.weight_exceptions), tr::unbound_branch),
    row("yield_lambda", T, tensor::can_top_stmt, |c| half(c.allow_block_bindings, c.weight_control), tensor::yield_lambda),
    row("dead_cond_output", T, tensor::can_top_stmt, |c| half(c.allow_block_bindings, c.weight_control), tensor::dead_cond_output),
    // ---- tensor family: expressions -----------------------------------
    row("tensor_literal", T, |_, w| matches!(w, Want::Tensor(_)), simple, tensor_expr::literal),
    row("tensor_name", T, tensor_expr::can_name, |c| 3 * simple(c), tensor_expr::name),
    row("tensor_compare", T, |_, w| w == Want::TCond, simple, tensor_expr::compare),
    row("fill", T, tensor_expr::can_fill, |c| c.weight_exprs as u32, tensor_expr::fill),
    row("elementwise", T, tensor_expr::can_num, |c| 1 + 2 * c.weight_exprs as u32, tensor_expr::elementwise),
    row("unary_math", T, tensor_expr::can_num, |c| c.weight_exprs as u32, tensor_expr::unary_math),
    row("maximum_minimum", T, tensor_expr::can_num, |c| c.weight_exprs as u32, tensor_expr::maximum_minimum),
    row("reduction", T, tensor_expr::can_reduction, |c| c.weight_exprs as u32, tensor_expr::reduction),
    row("matmul", T, tensor_expr::can_matmul, |c| c.weight_exprs as u32, tensor_expr::matmul),
    row("transpose", T, tensor_expr::can_transpose, |c| c.weight_exprs as u32, tensor_expr::transpose),
    row("reshape", T, tensor_expr::can_reshape, |c| c.weight_exprs as u32, tensor_expr::reshape),
    row("cast", T, tensor_expr::can_nested, |c| c.weight_exprs as u32, tensor_expr::cast),
    row("where", T, tensor_expr::can_nested, |c| c.weight_exprs as u32, tensor_expr::where_),
    row("indexing", T, tensor_expr::can_indexing, |c| c.weight_exprs as u32, tensor_expr::indexing),
    row("concat_stack", T, tensor_expr::can_concat_stack, |c| c.weight_exprs as u32, tensor_expr::concat_stack),
    row("argmax", T, tensor_expr::can_argmax, |c| c.weight_exprs as u32, tensor_expr::argmax),
    row("nested_function_call", T, tensor_expr::can_call, |c| gate(c.allow_nested_calls, 2 + 2 * c.weight_calls), tensor_expr::call),
    row("staged_ternary", T, tensor_expr::can_nested, |c| c.weight_control as u32, tensor_expr::ternary),
    row("hyper_operand", T, tensor_expr::can_hyper_operand, |c| gate(c.allow_hyperparams, 1 + c.weight_calls), tensor_expr::hyper_operand),
    row("python_global_read", T, tp::can_global_read, |c| gate(c.allow_hyperparams, 1 + c.weight_calls), tp::global_read),
    row("python_helper_read", T, tp::can_helper_read, |c| gate(c.allow_guard_helpers, 1 + c.weight_calls), tp::helper_read),
    row("python_class_attr_read", T, tp::can_attr_read, |c| gate(c.allow_guard_attrs, 1 + c.weight_calls), tp::class_attr_read),
    row("python_instance_attr_read", T, tp::can_attr_read, |c| gate(c.allow_guard_attrs, 1 + c.weight_calls), tp::instance_attr_read),
    row("python_dict_item_read", T, tp::can_container_read, |c| gate(c.allow_guard_containers, 1 + c.weight_calls), tp::dict_item_read),
    row("python_list_item_read", T, tp::can_container_read, |c| gate(c.allow_guard_containers, 1 + c.weight_calls), tp::list_item_read),
    row("python_len_read", T, tp::can_container_read, |c| gate(c.allow_guard_containers, 1 + c.weight_calls), tp::len_read),
    row("staged_raise_ternary", T, tr::can_raise_ternary, |c| half(c.allow_staged_raise, c.weight_exceptions), tr::raise_ternary),
    row("staged_raise_and_or", T, tr::can_raise_and_or, |c| half(c.allow_staged_raise, c.weight_exceptions), tr::raise_and_or),
    row("staged_unbound_read", T, tr::can_unbound_late, |c| half(c.allow_staged_unbound, c.weight_exceptions), tr::unbound_late),
    row("staged_and_or", T, tensor_expr::can_cond_nested, |c| c.weight_control as u32, tensor_expr::and_or),
    row("staged_chained_compare", T, tensor_expr::can_cond_nested, |c| c.weight_control as u32, tensor_expr::chained_compare),
    row("bool_ops", T, tensor_expr::can_cond_nested, |c| c.weight_control as u32, tensor_expr::bool_ops),
    row("staged_not", T, tensor_expr::can_not, |c| c.weight_control as u32, tensor_expr::not),
    // ---- tensor family: dtypes and values (tensor_values.rs) -----------
    row("special_values", T, tv::can_special, |c| half(c.allow_special_values, c.weight_exprs), tv::special_values),
    row("int_overflow", T, tv::can_int, |c| half(c.allow_int_overflow, c.weight_exprs), tv::int_overflow),
    row("division_by_zero", T, tv::can_div, |c| half(c.allow_div_zero, c.weight_exprs), tv::division_by_zero),
    row("bitwise", T, tv::can_bitwise, |c| gate(c.allow_bitwise, c.weight_exprs), tv::bitwise),
    row("compare_tensor", T, tv::can_compare_tensor, |c| gate(c.allow_wide_dtypes, 1 + c.weight_exprs), tv::compare_tensor),
    row("bool_condition", T, tv::can_bool_condition, |c| half(c.allow_wide_dtypes, c.weight_control), tv::bool_condition),
    row("slicing", T, tv::can_slicing, |c| gate(c.allow_slicing, c.weight_exprs), tv::slicing),
    row("broadcast", T, tv::can_broadcast, |c| gate(c.allow_broadcast, c.weight_exprs), tv::broadcast),
    row("int_power", T, tv::can_int, |c| half(c.allow_int_overflow, c.weight_exprs), tv::int_power),
    // ---- tensor family: the matmul kernels' other paths (tensor_matmul.rs)
    row("wide_matmul", T, tm::can_mat, |c| half(c.allow_big_matmul, c.weight_exprs), tm::wide_matmul),
    row("batched_matmul", T, tm::can_mat, |c| half(c.allow_big_matmul, c.weight_exprs), tm::batched_matmul),
    row("donor_matmul", T, tm::can_mat, |c| half(c.allow_big_matmul, c.weight_exprs), tm::donor_matmul),
    // ---- tensor family: definitions and calls (tensor_calls.rs) --------
    row("captured_tensor", T, tc::can_captured, |c| gate(c.allow_captures, 1 + c.weight_calls), tc::captured),
    row("retrace_shape", T, tc::can_retrace_shape, |c| half(c.allow_retrace, c.weight_calls), tc::retrace_shape),
    row("retrace_dtype", T, tc::can_retrace_dtype, |c| half(c.allow_retrace, c.weight_calls), tc::retrace_dtype),
    row("shape_dtype_read", T, tc::can_shape_dtype_read, |c| half(c.allow_conversions, c.weight_control), tc::shape_dtype_read),
    row("staged_recursion", T, tc::can_recursion, |c| gate(c.allow_staged_recursion, 2 + 2 * c.weight_calls), tc::recursion),
    // ---- tensor family: host effects in staged code (tensor_host.rs) ---
    row("staged_print", T, th::can_print, |c| half(c.allow_staged_print, c.weight_simple), th::print),
    row("staged_assert", T, th::can_assert, |c| half(c.allow_staged_assert, c.weight_exceptions), th::assert_stmt),
    row("variable_assign", T, th::can_variable_assign, |c| gate(c.allow_variables, 1 + c.weight_calls), th::variable_assign),
    row("variable_read", T, th::can_variable_read, |c| gate(c.allow_variables, 1 + c.weight_calls), th::variable_read),
    row("py_function", T, th::can_py_function, |c| gate(c.allow_py_function, 1 + c.weight_calls), th::py_function),
    row("tape_gradient", T, tg::can_tape, |c| gate(c.allow_gradients, 1 + c.weight_calls / 2), tg::tape_gradient),
    row("staged_list", T, tl::can_list, |c| gate(c.allow_staged_lists && c.allow_staged_loops, c.weight_loops), tl::staged_list),
    // Program level (`decide`): how functions are made and results shown.
    row("staged_closure", T, never, |c| half(c.allow_staged_closures, c.weight_scoping), unreachable_build),
    row("sc_print", T, never, |c| half(c.allow_sc_print, c.weight_simple), unreachable_build),
    row("device_gpu", T, never, |c| half(c.allow_device, c.weight_calls), unreachable_build),
    row("scalar_conversion", T, never, |c| half(c.allow_conversions, c.weight_simple), unreachable_build),
    row("shape_dtype_show", T, never, |c| half(c.allow_conversions, c.weight_simple), unreachable_build),
];

fn unreachable_build(_: &mut Gen, _: &mut Unstructured, _: Want) -> Result<String> {
    unreachable!("a program-level row is taken by `decide`, never built by `build`")
}

/// The names of one family's constructs, in table order.
pub fn names(family: Family) -> Vec<&'static str> {
    TABLE.iter().filter(|c| c.family == family).map(|c| c.name).collect()
}

/// A row chosen at program level rather than by `build` (its `can` is
/// `never`, or its reads are rows too): taken with probability weight/8
/// under the config; records the row when taken.
pub(crate) fn decide(g: &mut Gen, u: &mut Unstructured, name: &'static str) -> Result<bool> {
    let c = TABLE.iter().find(|c| c.name == name).expect("a row of the table");
    let w = (c.weight)(g.cfg);
    let yes = w > 0 && u.int_in_range(0..=7u32)? < w && g.settings.allows(name);
    if yes {
        g.used.insert(c.name);
    }
    Ok(yes)
}

/// Program-level rows: never picked by `build` (`decide` takes them).
fn never(_: &Gen, _: Want) -> bool {
    false
}

/// Picks a row that fits `want` here, weighted; records its name and builds it.
pub(crate) fn build(g: &mut Gen, u: &mut Unstructured, want: Want) -> Result<String> {
    let mut total = 0u32;
    let mut rows: Vec<(&'static Construct, u32)> = Vec::new();
    for c in TABLE {
        if c.family != g.family || !(c.can)(g, want) || !g.settings.allows(c.name) {
            continue;
        }
        let w = (c.weight)(g.cfg);
        if w > 0 {
            total += w;
            rows.push((c, w));
        }
    }
    assert!(total > 0, "no construct fits {want:?}: a leaf row must always fit");
    let mut x = u.int_in_range(0..=total - 1)?;
    for (c, w) in rows {
        if x < w {
            g.used.insert(c.name);
            return (c.build)(g, u, want);
        }
        x -= w;
    }
    unreachable!("x < total")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn names_are_distinct() {
        let all: Vec<_> = TABLE.iter().map(|c| c.name).collect();
        let set: BTreeSet<_> = all.iter().collect();
        assert_eq!(all.len(), set.len());
    }
}
