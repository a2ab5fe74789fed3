//! Each validation rule, broken once.

use super::*;
use stagecheck_graph::validate;

fn invalid(lib: &Library) -> String {
    validate(lib).expect_err("the library should be invalid")
}

#[test]
fn well_formed_libraries_validate_recursion_included() {
    validate(&sum_loop()).unwrap();
    validate(&cond_lib()).unwrap();
    validate(&countdown()).unwrap();
    validate(&Library::new()).unwrap();
}

#[test]
fn values_must_be_defined_before_use() {
    let mut lib = sum_loop();
    lib.functions[2].nodes[1] = op(Op::Add, &[0, 4]);
    assert_eq!(invalid(&lib), "function body (#2): node 1 (x3): uses x4 before it is defined (3 values so far)");
    let mut lib = sum_loop();
    lib.functions[0].outputs = vec![v(9)];
    assert_eq!(invalid(&lib), "function main (#0): returns x9, which is not defined");
    let mut lib = cond_lib();
    lib.functions[0].nodes[0] = Node::Cond { pred: v(5), then_fn: FnId(1), else_fn: FnId(2), inputs: vec![v(0)] };
    assert!(invalid(&lib).contains("uses x5 before it is defined"));
}

#[test]
fn functions_must_exist() {
    let mut lib = cond_lib();
    lib.functions[0].nodes[0] = Node::Cond { pred: v(1), then_fn: FnId(1), else_fn: FnId(9), inputs: vec![v(0)] };
    assert_eq!(invalid(&lib), "function f (#0): node 0 (x2): else branch #9 does not exist (3 functions)");
    let mut lib = sum_loop();
    lib.functions[0].nodes[2] = Node::Call { callee: FnId(3), inputs: vec![] };
    assert!(invalid(&lib).contains("callee #3 does not exist"));
}

#[test]
fn calls_must_match_parameters() {
    let mut lib = countdown();
    lib.functions[2].nodes[2] = Node::Call { callee: FnId(0), inputs: vec![v(2), v(2)] };
    assert_eq!(invalid(&lib), "function step (#2): node 2 (x3): callee down takes (int32 []) but is given (int32 [], int32 [])");
    let mut lib = countdown();
    lib.functions[2].nodes[0] = konst(Tensor::scalar_i64(1));
    assert!(invalid(&lib).contains("sub does not type-check: cannot compute Sub: int32 and int64 tensors"));
}

#[test]
fn cond_predicates_are_bool_scalars_and_branches_agree() {
    let mut lib = cond_lib();
    lib.functions[0].params[1] = scalar(DType::Int32);
    assert_eq!(invalid(&lib), "function f (#0): node 0 (x2): cond predicate x1 is int32 [] (expected a bool scalar)");
    let mut lib = cond_lib();
    lib.functions[0].params[1] = sig(DType::Bool, &[1]);
    assert!(invalid(&lib).contains("cond predicate x1 is bool [1]"));
    let mut lib = cond_lib();
    lib.functions[2].results = vec![sig(DType::Float32, &[3]), sig(DType::Float32, &[3])];
    lib.functions[2].outputs = vec![v(1), v(1)];
    assert!(invalid(&lib).contains("cond branches return different types"));
    let mut lib = cond_lib();
    lib.functions[2].params = vec![sig(DType::Float32, &[4])];
    lib.functions[2].results = vec![sig(DType::Float32, &[4])];
    assert!(invalid(&lib).contains("else branch else takes (float32 [4]) but is given (float32 [3])"));
}

#[test]
fn loops_keep_their_variables_types() {
    let mut lib = sum_loop();
    lib.functions[1].results = vec![scalar(DType::Int32)];
    lib.functions[1].outputs = vec![v(0)];
    assert!(invalid(&lib).contains("loop condition cond returns (int32 []) (expected one bool scalar)"));
    let mut lib = sum_loop();
    lib.functions[2].results = vec![scalar(DType::Int32)];
    lib.functions[2].outputs = vec![v(3)];
    assert!(invalid(&lib).contains("loop body body returns (int32 []) but the loop variables are (int32 [], int32 [])"));
    let mut lib = sum_loop();
    lib.functions[0].nodes[1] = konst(Tensor::scalar_f32(0.0));
    assert!(invalid(&lib).contains("loop condition cond takes (int32 [], int32 []) but is given (int32 [], float32 [])"));
}

#[test]
fn functions_return_what_they_declare() {
    let mut lib = sum_loop();
    lib.functions[0].results = vec![scalar(DType::Int64), scalar(DType::Int32)];
    assert_eq!(invalid(&lib), "function main (#0): returns (int32 [], int32 []) but declares (int64 [], int32 [])");
}

#[test]
fn ops_must_type_check() {
    let mut lib = cond_lib();
    lib.functions[1].nodes[0] = konst(Tensor::scalar_f64(2.0));
    assert!(invalid(&lib).contains("mul does not type-check: cannot compute Mul: float32 and float64 tensors"));
    let mut lib = cond_lib();
    lib.functions[2].nodes[0] = op(Op::Neg, &[0, 0]);
    assert!(invalid(&lib).contains("Neg expects 1 input, got 2"));
}
