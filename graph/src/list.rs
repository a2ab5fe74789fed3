//! Lists in graphs: what a Python list built in a staged loop becomes
//! (AutoGraph's list conversion to TensorList ops, seed 001 §5).
//!
//! The IR's values have static dtypes and shapes (traces are
//! shape-specialised), but a list grown in a staged loop has a length known
//! only at execution. Design: a list of elements of dtype `d` and shape `s`
//! is a tensor of shape `[n, *s]`, its elements stacked along a leading
//! dimension `n`, the list's length. In signatures that dimension is
//! [`DYN`] (printed `?`), the only dimension the IR leaves to execution; at
//! execution every value is an ordinary tensor with its real length. So a
//! list is a value like any other for loops (a loop variable of signature
//! `(d, [?, *s])`, which the body keeps), conds, calls, frames and devices:
//! nothing but the list ops and `infer` had to learn about it.
//!
//! List ops (`Op::List*`) fix the element type: `ListPush` accepts only an
//! element of the list's dtype and shape (`validate` checks it, the tracer
//! refuses a different one at the append's line), `ListLast`/`ListDrop`
//! (`l.pop()`) raise Python's `IndexError: pop from empty list` at
//! execution, `ListLen` gives an `int32` scalar, `ListStack` is `Stack` of
//! the elements (the same kernel, so the same bits and the same errors: an
//! empty list has nothing to stack, as `sc.stack([])`).
//!
//! Other ops on a value with a [`DYN`] dimension (the result of
//! `ListStack`) are typed by `infer` by probing: the op is inferred with the
//! dimension at two lengths ([`PROBES`]); an output dimension equal to the
//! probe both times is [`DYN`], one equal both times is static, anything
//! else (a reshape of the length into another dimension, a broadcast
//! against a static size) depends on the length and is an
//! `ErrorKind::Dynamic` error (a StagingError). Shape arithmetic of the ops
//! is sums, products, equalities and broadcasting against 1, so an output
//! dimension that takes both probes is the length; the one op that clamps
//! (`Index`, slices) is refused outright on a [`DYN`] dimension. Soundness
//! does not rest on probing alone: an op with a [`DYN`] input or output is
//! never given a planned shape (`plan.rs`), so the executor infers it again
//! on the real tensors at execution, and a length the op cannot take raises
//! there the error eager execution raises (both run `eval`). Python never
//! sees a [`DYN`] dimension: `t.shape` of such a symbolic tensor is a
//! StagingError (`staging/src/tensors/module.rs`).

use crate::dtype::DType;
use crate::error::{ErrorKind, OpError};
use crate::kernels::elem::Elem;
use crate::op::{Op, DYN};
use crate::shape::fmt_shape;
use crate::tensor::{with_array, Data};
use ndarray::{ArrayD, Axis, IxDyn, Slice};

/// The lengths a [`DYN`] dimension is probed at (small, so that probing
/// never meets the element cap; two, so a length-dependent size shows).
pub const PROBES: [usize; 2] = [5, 7];

/// Whether a shape has a dimension known only at execution.
pub fn has_dyn(shape: &[usize]) -> bool {
    shape.contains(&DYN)
}

/// A shape for messages: `[?,3]`.
pub(crate) fn fmt_dyn_shape(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|&d| if d == DYN { "?".to_string() } else { d.to_string() }).collect();
    format!("[{}]", dims.join(","))
}

fn empty_pop() -> OpError {
    OpError::new(ErrorKind::Index, "pop from empty list")
}

/// The list input of a list op: its length and element shape.
fn list_input<'a>(op: &Op, (_, s): (DType, &'a [usize])) -> Result<(usize, &'a [usize]), OpError> {
    s.split_first()
        .map(|(n, rest)| (*n, rest))
        .ok_or_else(|| OpError::invalid(format!("{}: a list is a tensor of rank >= 1, got a scalar", op.name())))
}

/// The length after a push or a pop (still [`DYN`] when unknown).
fn len_after(n: usize, delta: isize) -> Result<usize, OpError> {
    if n == DYN {
        return Ok(DYN);
    }
    if delta < 0 && n == 0 {
        return Err(empty_pop());
    }
    Ok((n as isize + delta) as usize)
}

/// `infer` of the list ops, on lengths known (execution) or [`DYN`] (tracing).
pub(crate) fn infer_list(op: &Op, inputs: &[(DType, &[usize])]) -> Result<(DType, Vec<usize>), OpError> {
    let with_len = |n: usize, rest: &[usize]| std::iter::once(n).chain(rest.iter().copied()).collect::<Vec<_>>();
    match op {
        Op::ListNew { shape, dtype } => {
            if has_dyn(shape) {
                return Err(OpError::invalid("ListNew: an element shape is static"));
            }
            crate::shape::check_num_elements(shape)?;
            Ok((*dtype, with_len(DYN, shape)))
        }
        Op::ListPush => {
            let (n, rest) = list_input(op, inputs[0])?;
            let (d, e) = inputs[1];
            if d != inputs[0].0 || e != rest {
                return Err(OpError::invalid(format!(
                    "{}: the list holds {} {} elements, not {d} {}",
                    op.name(),
                    inputs[0].0,
                    fmt_dyn_shape(rest),
                    fmt_dyn_shape(e)
                )));
            }
            let n = len_after(n, 1)?;
            if n != DYN {
                crate::shape::check_num_elements(&with_len(n, rest))?;
            }
            Ok((d, with_len(n, rest)))
        }
        Op::ListLast => {
            let (n, rest) = list_input(op, inputs[0])?;
            len_after(n, -1)?;
            Ok((inputs[0].0, rest.to_vec()))
        }
        Op::ListDrop => {
            let (n, rest) = list_input(op, inputs[0])?;
            Ok((inputs[0].0, with_len(len_after(n, -1)?, rest)))
        }
        Op::ListLen => {
            list_input(op, inputs[0])?;
            Ok((DType::Int32, Vec::new()))
        }
        Op::ListStack { axis } => {
            let (n, rest) = list_input(op, inputs[0])?;
            if n == 0 {
                // What `Stack` of no tensors says (`sc.stack([])`).
                return crate::infer::infer_sig(&Op::Stack { axis: *axis }, &[]);
            }
            let (ax, mut out) = crate::kernels::layout::stack_shape(&[rest], *axis)?;
            out[ax] = n;
            if n != DYN {
                crate::shape::check_num_elements(&out)?;
            }
            Ok((inputs[0].0, out))
        }
        _ => Err(OpError::invalid(format!("{} is not a list op", op.name()))),
    }
}

/// `infer` of a non-list op with a [`DYN`] dimension among its inputs, by
/// probing (see the module doc).
pub(crate) fn infer_probed(op: &Op, inputs: &[(DType, Vec<usize>)]) -> Result<(DType, Vec<usize>), OpError> {
    let shapes: Vec<String> = inputs.iter().map(|(d, s)| format!("{d} {}", fmt_dyn_shape(s))).collect();
    let refuse = |why: &str| {
        OpError::new(
            ErrorKind::Dynamic,
            format!("{} on ({}) {why}: a list's length is known only at execution", op.name(), shapes.join(", ")),
        )
    };
    if matches!(op, Op::Index { .. }) {
        return Err(refuse("cannot index a dimension of unknown length"));
    }
    let probe = |p: usize| {
        let sigs: Vec<(DType, Vec<usize>)> =
            inputs.iter().map(|(d, s)| (*d, s.iter().map(|&x| if x == DYN { p } else { x }).collect())).collect();
        crate::infer::infer(op, &sigs)
    };
    match (probe(PROBES[0]), probe(PROBES[1])) {
        (Ok((d1, s1)), Ok((d2, s2))) if d1 == d2 && s1.len() == s2.len() => {
            let mut out = Vec::with_capacity(s1.len());
            for (a, b) in s1.into_iter().zip(s2) {
                if a == b {
                    out.push(a);
                } else if a == PROBES[0] && b == PROBES[1] {
                    out.push(DYN);
                } else {
                    return Err(refuse("gives a shape that depends on the length"));
                }
            }
            Ok((d1, out))
        }
        // The same error at every length: the op's own (a dtype mismatch).
        (Err(e1), Err(e2)) if e1 == e2 => Err(e1),
        _ => Err(refuse("is valid at some lengths only")),
    }
}

/// `eval` of a list op on `inputs`, whose output shape `infer_list` gave.
pub(crate) fn eval_list(op: &Op, inputs: &[&crate::Tensor]) -> Result<Data, OpError> {
    let n = inputs.first().map_or(0, |t| t.shape().first().copied().unwrap_or(0));
    Ok(match op {
        Op::ListNew { shape, dtype } => {
            let full: Vec<usize> = std::iter::once(0).chain(shape.iter().copied()).collect();
            crate::kernels::generate::fill(&full, *dtype, 0.0)?
        }
        Op::ListPush => push(inputs[0].data(), inputs[1].data())?,
        Op::ListLast => with_array!(inputs[0].data(), a => {
            let last = n.checked_sub(1).ok_or_else(empty_pop)?;
            Elem::wrap(a.index_axis(Axis(0), last).to_owned())
        }),
        Op::ListDrop => with_array!(inputs[0].data(), a => {
            let keep = n.checked_sub(1).ok_or_else(empty_pop)?;
            Elem::wrap(a.slice_axis(Axis(0), Slice::from(..keep)).to_owned())
        }),
        Op::ListLen => list_len(n)?.into_data(),
        Op::ListStack { axis } => {
            let list = inputs[0];
            let elements: Vec<crate::Tensor> = with_array!(list.data(), a => {
                (0..n).map(|i| crate::Tensor::new(Elem::wrap(a.index_axis(Axis(0), i).to_owned()))).collect()
            });
            let refs: Vec<&crate::Tensor> = elements.iter().collect();
            crate::eval::eval(&Op::Stack { axis: *axis }, &refs)?.into_data()
        }
        _ => return Err(OpError::invalid(format!("{} is not a list op", op.name()))),
    })
}

/// `ListLen` of a list of `n` elements (a device knows `n` from the shape).
pub fn list_len(n: usize) -> Result<crate::Tensor, OpError> {
    let n = i32::try_from(n).map_err(|_| OpError::invalid("a list longer than int32"))?;
    Ok(crate::Tensor::new(Data::I32(ArrayD::from_elem(IxDyn(&[]), n))))
}

/// `ListPush` into the list's own storage (input 0, held by no one else:
/// the executor's donor, `plan.rs`): the row appended where ndarray keeps
/// capacity, so a list grown in a loop costs amortised O(row) a push, not
/// a copy of the list. The same elements as `push`; false (nothing done)
/// for anything else, or past the element cap (`eval` then says so).
pub(crate) fn in_place(op: &Op, list: &mut Data, k: usize, x: Option<&Data>) -> bool {
    fn rows<T: Clone>(a: &mut ArrayD<T>, x: &ArrayD<T>) -> bool {
        a.len().saturating_add(x.len()) <= crate::shape::MAX_ELEMENTS && a.push(Axis(0), x.view()).is_ok()
    }
    match (op, k, list, x) {
        (Op::ListPush, 0, Data::Bool(a), Some(Data::Bool(b))) => rows(a, b),
        (Op::ListPush, 0, Data::I32(a), Some(Data::I32(b))) => rows(a, b),
        (Op::ListPush, 0, Data::I64(a), Some(Data::I64(b))) => rows(a, b),
        (Op::ListPush, 0, Data::F32(a), Some(Data::F32(b))) => rows(a, b),
        (Op::ListPush, 0, Data::F64(a), Some(Data::F64(b))) => rows(a, b),
        _ => false,
    }
}

/// `list` with `x` appended along the leading dimension.
fn push(list: &Data, x: &Data) -> Result<Data, OpError> {
    fn rows<T: Clone>(a: &ArrayD<T>, x: &ArrayD<T>) -> Result<ArrayD<T>, OpError> {
        let row = x.view().insert_axis(Axis(0));
        ndarray::concatenate(Axis(0), &[a.view(), row])
            .map(|a| a.as_standard_layout().into_owned())
            .map_err(|e| OpError::invalid(format!("ListPush: {e} ({} and {})", fmt_shape(a.shape()), fmt_shape(x.shape()))))
    }
    Ok(match (list, x) {
        (Data::Bool(a), Data::Bool(b)) => Data::Bool(rows(a, b)?),
        (Data::I32(a), Data::I32(b)) => Data::I32(rows(a, b)?),
        (Data::I64(a), Data::I64(b)) => Data::I64(rows(a, b)?),
        (Data::F32(a), Data::F32(b)) => Data::F32(rows(a, b)?),
        (Data::F64(a), Data::F64(b)) => Data::F64(rows(a, b)?),
        _ => return Err(OpError::invalid("ListPush: the element's dtype is not the list's")),
    })
}
