//! Which ops run on the GPU: TensorFlow's rule, explicit CPU placement for
//! what has no kernel here. Kernels compute on the 32-bit dtypes (`bool`,
//! `int32`, `float32`); `int64`/`float64` arithmetic runs on the CPU (WGSL
//! has neither type without extensions). Layout ops move words of any dtype,
//! so they stay on the GPU for every dtype. `ArgMax` writes its `int64`
//! indices itself. `RangeCheck` reads three scalars: the CPU checks them.
//! List ops are layout ops on a list's rows (ops/lists.rs), any dtype.

use crate::device::Gpu;
use graph::{DType, Op};

fn small(d: DType) -> bool {
    matches!(d, DType::Bool | DType::Int32 | DType::Float32)
}

impl Gpu {
    /// Whether `op` on inputs of these dtypes runs on the GPU (false: the
    /// caller runs `graph::eval` on the CPU; `Gpu::eval` also does so itself).
    pub fn placed_on_gpu(&self, op: &Op, dtypes: &[DType]) -> bool {
        placed(op, dtypes)
    }
}

pub(crate) fn placed(op: &Op, dtypes: &[DType]) -> bool {
    let inputs_small = dtypes.iter().all(|&d| small(d));
    match op {
        Op::Identity | Op::Reshape { .. } | Op::Transpose { .. } | Op::Index { .. } => true,
        Op::Concat { .. } | Op::Stack { .. } | Op::Gather => true,
        Op::RangeCheck => false,
        op if op.is_list_op() => true,
        Op::Fill { dtype, .. } | Op::Eye { dtype, .. } => small(*dtype),
        Op::Range { dtype, .. } => matches!(dtype, DType::Int32 | DType::Float32),
        Op::Cast { dtype } => small(*dtype) && inputs_small,
        // Int division gives float64.
        Op::Div => dtypes.iter().all(|&d| d == DType::Float32),
        _ => inputs_small,
    }
}
