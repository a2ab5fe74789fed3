//! Elementwise ops with NumPy broadcasting (unary, binary, comparisons,
//! bitwise, where, cast): one dispatch; the ops that can fail on a value
//! (int floor division and modulo by zero, negative int powers) also read
//! back a flag the failing elements set.

use super::{contiguous, count, words};
use crate::device::{groups_for, internal, Gpu};
use crate::tensor::GpuTensor;
use crate::wgsl::elementwise::{map_kernel, rule, Access};
use graph::{DType, Op, OpError};

/// Strides of `shape` broadcast to `out` (0 on broadcast and missing dims).
fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<i64> {
    let own = contiguous(shape);
    let lead = out.len() - shape.len();
    (0..out.len()).map(|ax| if ax < lead || shape[ax - lead] == 1 { 0 } else { own[ax - lead] }).collect()
}

fn access(shape: &[usize], out: &[usize]) -> Access {
    if shape == out {
        Access::Full
    } else if count(shape) == 1 {
        Access::Single
    } else {
        Access::Strided
    }
}

/// The error of an op whose flag a failing element set (graph's messages).
fn failure(op: &Op) -> OpError {
    match op {
        Op::Pow => OpError::invalid("Integers to negative integer powers are not allowed"),
        _ => OpError::zero_division(),
    }
}

impl Gpu {
    pub(crate) fn map(&self, op: &Op, inputs: &[&GpuTensor], dtype: DType, shape: &[usize]) -> Result<GpuTensor, OpError> {
        let ruled = if matches!(op, Op::Where) { inputs[1] } else { inputs[0] };
        let rule = rule(op, ruled.dtype()).ok_or_else(|| internal(format!("no kernel for {} on {}", op.name(), ruled.dtype())))?;
        let n = count(shape);
        let out = self.buffer(n);
        if n == 0 {
            return Ok(GpuTensor::new(out, dtype, shape.to_vec()));
        }
        let dtypes: Vec<DType> = inputs.iter().map(|t| t.dtype()).collect();
        let access: Vec<Access> = inputs.iter().map(|t| access(t.shape(), shape)).collect();
        let mut info = words([n as i64, shape.len() as i64]);
        info.extend(words(shape.iter().map(|&d| d as i64)));
        for t in inputs {
            info.extend(words(broadcast_strides(t.shape(), shape)));
        }
        let info = self.buffer_from(&info);
        let flag = rule.fails.map(|_| self.buffer_from(&[0]));
        let mut bindings: Vec<&wgpu::Buffer> = vec![&info];
        bindings.extend(inputs.iter().map(|t| self.buffer_of(t)));
        bindings.push(&out);
        bindings.extend(flag.as_ref());
        self.dispatch(&map_kernel(&rule, &dtypes, &access), &bindings, groups_for(n))?;
        if let Some(flag) = &flag {
            if self.read(flag, 1)?[0] != 0 {
                return Err(failure(op));
            }
        }
        Ok(GpuTensor::new(out, dtype, shape.to_vec()))
    }
}
