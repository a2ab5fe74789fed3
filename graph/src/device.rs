//! Where a graph's values live and its ops run: the [`Device`] the executor
//! (`exec.rs`) hands every `Op` node to, and the [`Cpu`], whose values are
//! host tensors and whose ops are `eval`'s kernels, the ones eager execution
//! runs (so original and staged runs agree bit for bit). A GPU device is
//! the `stagecheck-gpu` crate's.

use crate::error::OpError;
use crate::eval::eval;
use crate::ir::Sig;
use crate::op::Op;
use crate::scalar::Scalar;
use crate::tensor::Tensor;

/// Where a graph's values live and its ops run.
pub trait Device {
    /// A value as the device holds it.
    type Value: Clone;
    /// Computes `op` on `inputs`. `sig`: the output's dtype and shape when the
    /// plan knows them (validation proved them), else the device infers.
    fn op(&self, op: &Op, inputs: &[&Self::Value], sig: Option<&Sig>) -> Result<Self::Value, OpError>;
    /// `op` where input `k`, `donor`, is read for the last time and handed
    /// over (it has the output's dtype and shape); `others` are the other
    /// inputs in order. A device may compute the output into the donor's
    /// storage; by default, `op`.
    fn op_into(&self, op: &Op, donor: Self::Value, k: usize, others: &[&Self::Value], sig: Option<&Sig>) -> Result<Self::Value, OpError> {
        self.op(op, &with_donor(others, k, &donor), sig)
    }
    /// A host tensor on the device: arguments, and `Const` nodes (a device may
    /// keep a copy per tensor: constants are the library's, as long-lived).
    fn upload(&self, t: &Tensor) -> Result<Self::Value, OpError>;
    /// A value on the host: results, and the predicates of conds and loops.
    fn download(&self, v: &Self::Value) -> Result<Tensor, OpError>;
    /// A `Const` node's tensor as a value without a copy, when the device's
    /// values are host tensors: the executor then reads it from the library
    /// instead of storing (and dropping) a reference in every frame.
    fn constant<'t>(&self, _t: &'t Tensor) -> Option<&'t Self::Value> {
        None
    }
    /// The element of a 0-d value, on the host (a predicate): by default
    /// through `download`.
    fn scalar(&self, v: &Self::Value) -> Result<Option<Scalar>, OpError> {
        Ok(self.download(v)?.to_scalar())
    }
    /// Several predicates on the host at once: by default one by one.
    fn scalars(&self, vs: &[&Self::Value]) -> Result<Vec<Option<Scalar>>, OpError> {
        vs.iter().map(|v| self.scalar(v)).collect()
    }
    /// The most iterations of a flat loop run before their predicates are
    /// read (1: each is read before the next iteration runs). A device whose
    /// reads are round trips (a GPU's queue) reads several at once; the
    /// iterations past the loop's end are dropped, their values and errors
    /// with them: only loops without host nodes (`Plan::pure`) run so.
    fn lookahead(&self) -> usize {
        1
    }
}

/// The CPU: values are host tensors, ops the `eval` kernels.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

impl Device for Cpu {
    type Value = Tensor;

    fn op(&self, op: &Op, inputs: &[&Tensor], sig: Option<&Sig>) -> Result<Tensor, OpError> {
        match sig {
            Some((_, shape)) => crate::eval::eval_planned(op, inputs, shape),
            None => eval(op, inputs),
        }
    }

    /// Elementwise ops write into the donor when no one else holds it
    /// (`kernels/in_place.rs`: the same element functions as `eval`'s).
    fn op_into(&self, op: &Op, mut donor: Tensor, k: usize, others: &[&Tensor], sig: Option<&Sig>) -> Result<Tensor, OpError> {
        if others.len() <= 1 {
            if let Some(data) = donor.data_mut() {
                if crate::kernels::in_place::in_place(op, data, k, others.first().map(|t| t.data())) {
                    return Ok(donor);
                }
            }
        }
        self.op(op, &with_donor(others, k, &donor), sig)
    }

    fn upload(&self, t: &Tensor) -> Result<Tensor, OpError> {
        Ok(t.clone())
    }

    fn download(&self, v: &Tensor) -> Result<Tensor, OpError> {
        Ok(v.clone())
    }

    fn constant<'t>(&self, t: &'t Tensor) -> Option<&'t Tensor> {
        Some(t)
    }

    fn scalar(&self, v: &Tensor) -> Result<Option<Scalar>, OpError> {
        Ok(v.to_scalar())
    }
}

/// All inputs of an op: `others` with `donor` put back at position `k`.
fn with_donor<'a, V>(others: &[&'a V], k: usize, donor: &'a V) -> smallvec::SmallVec<[&'a V; 4]> {
    let mut inputs: smallvec::SmallVec<[&V; 4]> = others.iter().copied().collect();
    inputs.insert(k.min(inputs.len()), donor);
    inputs
}
