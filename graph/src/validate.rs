//! `validate`: a library is well formed when every reference is in range and
//! defined before use, calls match their callee's parameters, cond branches
//! agree, loop bodies keep their loop variables' types, conds' and loops'
//! predicates are bool scalars, ops type-check by `infer`, and each function
//! returns what it declares. Recursion is allowed (the executor limits depth).

use crate::dtype::DType;
use crate::infer::infer;
use crate::ir::{FnId, Function, Library, Node, Sig, ValueId};

/// `Ok` for a well-formed library, else the first problem found, located by
/// function and node.
pub fn validate(lib: &Library) -> Result<(), String> {
    validate_from(lib, 0)
}

/// `validate` of the functions from index `start` on, against all of `lib`:
/// the whole library's verdict when the functions before `start` were
/// validated as they are (a function is checked against its callees'
/// signatures only, and a valid one calls only functions that existed then).
pub fn validate_from(lib: &Library, start: usize) -> Result<(), String> {
    for (id, f) in lib.iter().skip(start) {
        value_types(lib, f).map_err(|e| format!("function {} (#{}): {e}", f.name, id.0))?;
    }
    Ok(())
}

pub(crate) fn fmt_sig((d, s): &Sig) -> String {
    let dims: Vec<String> = s.iter().map(|&x| if x == crate::op::DYN { "?".to_string() } else { x.to_string() }).collect();
    format!("{d} [{}]", dims.join(" "))
}

pub(crate) fn fmt_sigs(sigs: &[Sig]) -> String {
    let all: Vec<String> = sigs.iter().map(fmt_sig).collect();
    format!("({})", all.join(", "))
}

fn callee<'l>(lib: &'l Library, id: FnId, role: &str) -> Result<&'l Function, String> {
    lib.get(id).ok_or_else(|| format!("{role} #{} does not exist ({} functions)", id.0, lib.functions.len()))
}

fn expect_params(f: &Function, role: &str, given: &[Sig]) -> Result<(), String> {
    if f.params != given {
        return Err(format!("{role} {} takes {} but is given {}", f.name, fmt_sigs(&f.params), fmt_sigs(given)));
    }
    Ok(())
}

/// The types of all values of `f` (params, then node outputs), checking each node.
pub(crate) fn value_types(lib: &Library, f: &Function) -> Result<Vec<Sig>, String> {
    let mut types: Vec<Sig> = f.params.clone();
    for (i, node) in f.nodes.iter().enumerate() {
        let at = |e: String| format!("node {i} (x{}): {e}", types.len());
        let get = |v: ValueId| -> Result<Sig, String> {
            types.get(v.0 as usize).cloned().ok_or_else(|| format!("uses x{} before it is defined ({} values so far)", v.0, types.len()))
        };
        let inputs: Vec<Sig> = match node {
            Node::Const(_) | Node::Raise { .. } => Vec::new(),
            Node::Op { inputs, .. }
            | Node::Cond { inputs, .. }
            | Node::While { inputs, .. }
            | Node::Call { inputs, .. }
            | Node::Host { inputs, .. } => inputs.iter().map(|&v| get(v)).collect::<Result<_, _>>().map_err(at)?,
        };
        let outputs: Vec<Sig> = match node {
            Node::Const(t) => vec![(t.dtype(), t.shape().to_vec())],
            Node::Op { op, .. } => {
                vec![infer(op, &inputs).map_err(|e| at(format!("{} does not type-check: {e}", op.sexpr_name())))?]
            }
            Node::Cond { pred, then_fn, else_fn, .. } => {
                let p = get(*pred).map_err(at)?;
                if p != (DType::Bool, vec![]) {
                    return Err(at(format!("cond predicate x{} is {} (expected a bool scalar)", pred.0, fmt_sig(&p))));
                }
                let t = callee(lib, *then_fn, "then branch").map_err(at)?;
                let e = callee(lib, *else_fn, "else branch").map_err(at)?;
                expect_params(t, "then branch", &inputs).map_err(at)?;
                expect_params(e, "else branch", &inputs).map_err(at)?;
                if t.results != e.results {
                    return Err(at(format!(
                        "cond branches return different types: {} returns {}, {} returns {}",
                        t.name,
                        fmt_sigs(&t.results),
                        e.name,
                        fmt_sigs(&e.results)
                    )));
                }
                t.results.clone()
            }
            Node::While { cond_fn, body_fn, .. } => {
                let c = callee(lib, *cond_fn, "loop condition").map_err(at)?;
                let b = callee(lib, *body_fn, "loop body").map_err(at)?;
                expect_params(c, "loop condition", &inputs).map_err(at)?;
                expect_params(b, "loop body", &inputs).map_err(at)?;
                if c.results != [(DType::Bool, vec![])] {
                    return Err(at(format!("loop condition {} returns {} (expected one bool scalar)", c.name, fmt_sigs(&c.results))));
                }
                if b.results != inputs {
                    return Err(at(format!(
                        "loop body {} returns {} but the loop variables are {}",
                        b.name,
                        fmt_sigs(&b.results),
                        fmt_sigs(&inputs)
                    )));
                }
                inputs
            }
            Node::Call { callee: id, .. } => {
                let c = callee(lib, *id, "callee").map_err(at)?;
                expect_params(c, "callee", &inputs).map_err(at)?;
                c.results.clone()
            }
            Node::Raise { results, .. } | Node::Host { results, .. } => results.clone(),
        };
        types.extend(outputs);
    }
    let returned: Vec<Sig> = f
        .outputs
        .iter()
        .map(|v| types.get(v.0 as usize).cloned().ok_or_else(|| format!("returns x{}, which is not defined", v.0)))
        .collect::<Result<_, _>>()?;
    if returned != f.results {
        return Err(format!("returns {} but declares {}", fmt_sigs(&returned), fmt_sigs(&f.results)));
    }
    Ok(types)
}
