//! `Gpu::eval`: `graph::infer` first (same shape and dtype errors, same
//! messages), then the op's kernel family; ops placed on the CPU go through
//! `graph::eval` on downloaded inputs, so `eval` computes every op; so do
//! ops on tensors larger than a kernel may bind (lavapipe: 128 MiB, 2^25
//! words; graph allows 2^27 elements).

use crate::device::Gpu;
use crate::placement::placed;
use crate::tensor::{width, GpuTensor};
use graph::{DType, Op, OpError, Tensor};

/// `axis` normalised for `rank` axes (`infer` has checked it).
fn norm(axis: i64, rank: usize) -> usize {
    if axis < 0 {
        (axis + rank as i64) as usize
    } else {
        axis as usize
    }
}

impl Gpu {
    /// Computes `op` on device tensors: same result dtype and shape, and the
    /// same errors (kind and message), as `graph::eval`.
    pub fn eval(&self, op: &Op, inputs: &[&GpuTensor]) -> Result<GpuTensor, OpError> {
        use Op::*;
        if let ListNew { shape, dtype } = op {
            // Its signature's length is unknown (`DYN`): the CPU's checks, then none.
            graph::infer(op, &[])?;
            return Ok(self.list_new(shape, *dtype));
        }
        let sigs: Vec<(DType, Vec<usize>)> = inputs.iter().map(|t| (t.dtype(), t.shape().to_vec())).collect();
        let (dtype, shape) = graph::infer(op, &sigs)?;
        let dtypes: Vec<DType> = sigs.iter().map(|(d, _)| *d).collect();
        let words = |d: DType, s: &[usize]| (s.iter().product::<usize>() * width(d)) as u64 * 4;
        let too_large = sigs.iter().chain([&(dtype, shape.clone())]).any(|(d, s)| words(*d, s) > self.max_binding);
        if !placed(op, &dtypes) || too_large {
            return self.on_cpu(op, inputs);
        }
        match op {
            Identity => Ok(inputs[0].clone()),
            Cast { dtype } if *dtype == inputs[0].dtype() => Ok(inputs[0].clone()),
            Reshape { .. } => Ok(inputs[0].reshaped(shape)),
            MatMul => self.matmul(inputs[0], inputs[1], dtype, shape),
            ReduceSum { .. } | ReduceMax { .. } | ReduceMin { .. } | ReduceMean { .. } | ArgMax { .. } => {
                self.reduce(op, inputs[0], dtype, shape)
            }
            Transpose { perm } => {
                let rank = inputs[0].shape().len();
                let perm = perm.clone().unwrap_or_else(|| (0..rank).rev().collect());
                self.transpose(inputs[0], &perm, shape)
            }
            Index { items } => self.index(inputs[0], items, shape),
            Gather => self.gather(inputs[0], inputs[1]),
            Concat { axis } => self.concat(inputs, norm(*axis, shape.len()), dtype, shape),
            Stack { axis } => {
                let ax = norm(*axis, shape.len());
                let lifted: Vec<GpuTensor> = inputs
                    .iter()
                    .map(|t| {
                        let mut s = t.shape().to_vec();
                        s.insert(ax, 1);
                        t.reshaped(s)
                    })
                    .collect();
                let refs: Vec<&GpuTensor> = lifted.iter().collect();
                self.concat(&refs, ax, dtype, shape)
            }
            Fill { .. } | Range { .. } | Eye { .. } => self.generate(op, dtype, shape),
            ListStack { axis } => self.list_stack(inputs[0], norm(*axis, shape.len()), shape),
            ListPush | ListLast | ListDrop | ListLen => self.list_op(op, inputs, dtype, shape),
            _ => self.map(op, inputs, dtype, &shape),
        }
    }

    /// Explicit CPU placement: download (host values need none),
    /// `graph::eval`, the result kept on the host (tensor.rs).
    fn on_cpu(&self, op: &Op, inputs: &[&GpuTensor]) -> Result<GpuTensor, OpError> {
        let host: Vec<Tensor> = self.download_many(inputs)?;
        let refs: Vec<&Tensor> = host.iter().collect();
        Ok(GpuTensor::on_host(graph::eval(op, &refs)?))
    }
}
