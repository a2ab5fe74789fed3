//! Every construct of the table appears in at least 1% of 2,000 programs of its
//! family generated from random bytes with random configs (every row allowed:
//! `common::ALL_ROWS`; the default leaves out `set_order`). Prints the table of
//! percentages (`cargo test --release -p stagecheck-generator --test coverage -- --nocapture`).

mod common;

use stagecheck_generator::{construct_names, Family};
use std::collections::BTreeMap;

const PROGRAMS: u64 = 2_000;

fn coverage(family: Family) -> Vec<(&'static str, f64)> {
    let mut counts: BTreeMap<&'static str, u64> = construct_names(family).into_iter().map(|n| (n, 0)).collect();
    for seed in 0..PROGRAMS {
        let (_, p) = common::program_for(seed * 7 + 3, family, &common::ALL_ROWS);
        for c in p.constructs {
            *counts.get_mut(c).unwrap_or_else(|| panic!("{c} is not a {family:?} construct")) += 1;
        }
    }
    let mut v: Vec<_> = counts.into_iter().map(|(n, c)| (n, 100.0 * c as f64 / PROGRAMS as f64)).collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1));
    v
}

/// The constructs the generator is asked to have, by name.
#[rustfmt::skip]
const REQUIRED: &[&str] = &[
    "if", "while", "for", "break", "continue", "return", "try_finally", "raise", "global", "nonlocal",
    "closure_late_binding", "generator", "comprehension", "recursion", "and_or", "ternary", "chained_compare",
    "augassign", "del", "unbound_read", "list_append", "subscript", "call", "side_effect_in_condition",
    "staged_if", "staged_while", "staged_for_tensor", "staged_for_range", "python_hyperparam",
    "nested_function_call", "loop_carried_tensors", "tape_gradient",
    // Trace guards: Python values read by staged functions, changed between calls.
    "python_global_read", "python_helper_read", "python_class_attr_read", "python_instance_attr_read",
    "python_dict_item_read", "python_list_item_read", "python_len_read", "python_loop_bound",
    // Staged raises: raises and unbound reads on some paths of staged control flow.
    "staged_raise", "staged_raise_ternary", "staged_raise_and_or", "staged_unbound_read", "staged_unbound_branch",
    // The whole `sc` API over five dtypes: values, retraces, captures, closures, recursion, the top level.
    "special_values", "int_overflow", "division_by_zero", "bitwise", "compare_tensor", "bool_condition", "slicing",
    "captured_tensor", "retrace_shape", "retrace_dtype", "shape_dtype_read", "staged_recursion", "staged_closure",
    "sc_print", "device_gpu", "scalar_conversion", "shape_dtype_show", "broadcast",
    // The holes the mutation score named (reports/mutation.md): names bound in converted
    // blocks and read after, namespace readers and docstrings; the matmul kernels' other paths,
    // negative integer powers, a generator lambda and a name dead after a staged `if`.
    "import_in_block", "capture_after_block", "walrus_after_block", "annotated_local", "declaration_block",
    "unbound_update", "with_cancelled_exit", "namespace_and_doc", "yield_lambda", "dead_cond_output",
    "int_power", "wide_matmul", "batched_matmul", "donor_matmul",
];

#[test]
fn the_table_has_the_required_constructs() {
    let all: Vec<_> = [Family::Plain, Family::Tensor].into_iter().flat_map(construct_names).collect();
    for r in REQUIRED {
        assert!(all.contains(r), "{r} is missing from the table");
    }
}

#[test]
fn every_construct_appears_in_at_least_one_percent_of_programs() {
    let mut low = Vec::new();
    for family in [Family::Plain, Family::Tensor] {
        println!("{family:?} family, {PROGRAMS} programs: % of programs using each construct");
        for (name, pct) in coverage(family) {
            println!("  {name:<26} {pct:6.2}%");
            if pct < 1.0 {
                low.push(format!("{family:?}/{name}: {pct:.2}%"));
            }
        }
    }
    assert!(low.is_empty(), "constructs under 1%: {low:?}");
}
