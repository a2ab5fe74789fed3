//! Per-function execution plans, computed once per library: where each
//! node's outputs are numbered, and which values die after which node, so the
//! executor frees buffers as soon as nothing reads them any more.

use crate::ir::{Function, Library, Node, Sig};

#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The id of each node's first output value.
    pub first_output: Vec<usize>,
    /// How many values the function has (params and node outputs).
    pub num_values: usize,
    /// Values last read by node `i` (not returned): dropped once it has read them.
    pub free_after: Vec<Vec<usize>>,
    /// Parameters nothing reads: dropped on entry.
    pub unused_params: Vec<usize>,
    /// Per parameter: whether anything reads or returns it (a loop
    /// condition is handed only these).
    pub param_used: Vec<bool>,
    /// Node outputs nothing reads (nor returns): never stored.
    pub dead: Vec<bool>,
    /// The dtype and shape of each `Op` node's output, inferred once here
    /// (validation proved them), so the executor does not infer per run.
    pub op_sigs: Vec<Option<Sig>>,
    /// Per `Op` node: an input position whose value is read for the last
    /// time there (once), with the output's dtype and shape: the device may
    /// compute the output into its storage.
    pub donor: Vec<Option<usize>>,
    /// Only `Const`, `Op`, `Raise` and `Host` nodes: an invocation runs to its end without
    /// invoking anything (a loop of such functions runs without the frame stack).
    pub flat: bool,
    /// No `Host` node (nor a call that may reach one: only flat functions
    /// are asked): an invocation has no effect but its results and errors.
    pub pure: bool,
    /// Per value: the `Const` node defining it (a device whose values are
    /// host tensors reads those from the library; never a donor).
    pub const_node: Vec<Option<usize>>,
}

impl Plan {
    /// The plan of `f`; `lib` has been validated, so every callee exists.
    pub(crate) fn new(lib: &Library, f: &Function) -> Plan {
        let mut first_output = Vec::with_capacity(f.nodes.len());
        let mut next = f.params.len();
        for node in &f.nodes {
            first_output.push(next);
            next += lib.num_outputs(node).unwrap_or(0);
        }
        let num_values = next;
        let mut last_use: Vec<Option<usize>> = vec![None; num_values];
        for (i, node) in f.nodes.iter().enumerate() {
            for v in node.uses() {
                if let Some(slot) = last_use.get_mut(v.0 as usize) {
                    *slot = Some(i);
                }
            }
        }
        let mut returned = vec![false; num_values];
        for v in &f.outputs {
            if let Some(r) = returned.get_mut(v.0 as usize) {
                *r = true;
            }
        }
        let mut free_after = vec![Vec::new(); f.nodes.len()];
        let mut unused_params = Vec::new();
        let mut dead = vec![false; num_values];
        for v in 0..num_values {
            if returned[v] {
                continue;
            }
            match last_use[v] {
                Some(i) => free_after[i].push(v),
                None if v < f.params.len() => unused_params.push(v),
                None => dead[v] = true,
            }
        }
        let mut const_node = vec![None; num_values];
        for (i, node) in f.nodes.iter().enumerate() {
            if let (Node::Const(_), Some(slot)) = (node, const_node.get_mut(first_output[i])) {
                *slot = Some(i);
            }
        }
        let (op_sigs, value_sigs, inferred) = op_signatures(lib, f);
        let donor = f
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                // A list's push may take the list (its `DYN` signature is the
                // output's) though unplanned; no other op on a `DYN` value.
                let out = match node {
                    Node::Op { op: crate::op::Op::ListPush, .. } => inferred[i].as_ref(),
                    _ => op_sigs[i].as_ref(),
                };
                let (Node::Op { inputs, .. }, Some(out)) = (node, out) else {
                    return None;
                };
                inputs.iter().position(|v| {
                    let v = v.0 as usize;
                    (free_after[i].contains(&v) || (crate::planted::active("donor_returned_value") && last_use[v] == Some(i)))
                        && const_node[v].is_none()
                        && inputs.iter().filter(|w| w.0 as usize == v).count() == 1
                        && value_sigs.get(v) == Some(out)
                })
            })
            .collect();
        let param_used = (0..f.params.len()).map(|v| !unused_params.contains(&v)).collect();
        let flat = f.nodes.iter().all(|n| matches!(n, Node::Const(_) | Node::Op { .. } | Node::Raise { .. } | Node::Host { .. }));
        let pure = !f.nodes.iter().any(|n| matches!(n, Node::Host { .. }));
        Plan { first_output, num_values, free_after, unused_params, param_used, dead, op_sigs, donor, flat, pure, const_node }
    }
}

/// Each `Op` node's output signature for the executor (None when it
/// cannot be inferred or involves a list's length: the executor then infers
/// at run time), every value's signature in order as far as known, and
/// each `Op` node's inferred output signature (list lengths `DYN`).
#[allow(clippy::type_complexity)]
fn op_signatures(lib: &Library, f: &Function) -> (Vec<Option<Sig>>, Vec<Sig>, Vec<Option<Sig>>) {
    let mut values: Vec<Sig> = f.params.clone();
    let mut out = Vec::with_capacity(f.nodes.len());
    let mut inferred = Vec::with_capacity(f.nodes.len());
    for node in &f.nodes {
        let sigs: Option<Vec<Sig>> = match node {
            Node::Const(t) => Some(vec![(t.dtype(), t.shape().to_vec())]),
            Node::Op { op, inputs } => {
                let ins: Option<Vec<Sig>> = inputs.iter().map(|v| values.get(v.0 as usize).cloned()).collect();
                ins.and_then(|ins| crate::infer(op, &ins).ok()).map(|s| vec![s])
            }
            Node::Cond { then_fn: callee, .. } | Node::Call { callee, .. } => lib.get(*callee).map(|c| c.results.clone()),
            Node::While { inputs, .. } => inputs.iter().map(|v| values.get(v.0 as usize).cloned()).collect(),
            Node::Raise { results, .. } | Node::Host { results, .. } => Some(results.clone()),
        };
        let Some(sigs) = sigs else {
            // Unknown from here on: leave the rest to run-time inference.
            out.resize(f.nodes.len(), None);
            inferred.resize(f.nodes.len(), None);
            return (out, values, inferred);
        };
        // An op on or giving a list-length dimension (`list.rs`) is inferred
        // again at execution, on the real lengths.
        let dynamic = match node {
            Node::Op { inputs, .. } => inputs.iter().any(|v| values.get(v.0 as usize).is_some_and(|s| crate::list::has_dyn(&s.1))),
            _ => false,
        };
        let planned = sigs.first().filter(|s| !dynamic && !crate::list::has_dyn(&s.1)).cloned();
        out.push(if matches!(node, Node::Op { .. }) { planned } else { None });
        inferred.push(if matches!(node, Node::Op { .. }) { sigs.first().cloned() } else { None });
        values.extend(sigs);
    }
    (out, values, inferred)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::ir::{Node, ValueId};
    use crate::op::Op;
    use crate::tensor::Tensor;

    #[test]
    fn values_die_after_their_last_reader() {
        // (x0 x1) -> x2 = neg x0; x3 = add x2 x2; x4 = const; x5 = mul x3 x0; return (x5 x3)
        let n = (DType::Int32, vec![]);
        let op = |op, ins: &[u32]| Node::Op { op, inputs: ins.iter().map(|&i| ValueId(i)).collect() };
        let f = Function {
            name: "f".into(),
            params: vec![n.clone(), n.clone()],
            results: vec![n.clone(), n],
            nodes: vec![op(Op::Neg, &[0]), op(Op::Add, &[2, 2]), Node::Const(Tensor::scalar_i32(1)), op(Op::Mul, &[3, 0])],
            outputs: vec![ValueId(5), ValueId(3)],
        };
        let plan = Plan::new(&Library::new(), &f);
        assert_eq!(plan.first_output, vec![2, 3, 4, 5]);
        assert_eq!(plan.num_values, 6);
        // x2 dies after node 1; x0 after node 3; x3 is returned, so it stays.
        assert_eq!(plan.free_after, vec![vec![], vec![2], vec![], vec![0]]);
        assert_eq!(plan.unused_params, vec![1]);
        assert_eq!(plan.dead, vec![false, false, false, false, true, false]);
    }
}
