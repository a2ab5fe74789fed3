//! Ops without inputs: `Fill` (its one word converted on the host by
//! graph's own `Cast` rule), `Eye`, `Range` (ints as `start + i·delta`,
//! wrapping, which equals graph's sequential sum; float32 accumulated
//! sequentially, as graph does, to round the same: one invocation per chunk).

use super::{count, words};
use crate::device::{groups_for, Gpu};
use crate::tensor::GpuTensor;
use crate::wgsl::elementwise::generate_kernel;
use crate::wgsl::reduce::ITERATIONS;
use graph::{DType, Op, OpError, Scalar};

/// The word of `value` converted to `dtype` as `Fill` does (through graph::eval).
fn word_of(dtype: DType, value: f64) -> Result<u32, OpError> {
    let t = graph::eval(&Op::Fill { shape: vec![], dtype, value }, &[])?;
    Ok(match t.to_scalar() {
        Some(Scalar::Bool(b)) => u32::from(b),
        Some(Scalar::I32(i)) => i as u32,
        Some(Scalar::F32(f)) => f.to_bits(),
        _ => return Err(OpError::unimplemented(format!("Fill of {dtype} is not on the GPU"))),
    })
}

impl Gpu {
    fn generated(&self, body: &str, info: Vec<u32>, threads: usize, dtype: DType, shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        let out = self.buffer(count(&shape));
        if count(&shape) > 0 {
            self.dispatch(&generate_kernel(body), &[&self.buffer_from(&info), &out], groups_for(threads))?;
        }
        Ok(GpuTensor::new(out, dtype, shape))
    }

    pub(crate) fn generate(&self, op: &Op, dtype: DType, shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        let n = count(&shape) as u32;
        match op {
            Op::Fill { value, .. } => self.generated("out[i] = info[2];\n", vec![n, 0, word_of(dtype, *value)?], n as usize, dtype, shape),
            Op::Eye { n: size, .. } => {
                let body = "out[i] = select(0u, info[3], i / info[2] == i % info[2]);\n";
                self.generated(body, vec![n, 0, *size as u32, word_of(dtype, 1.0)?], n as usize, dtype, shape)
            }
            Op::Range { start, delta, .. } if dtype == DType::Int32 => {
                let body = "out[i] = bitcast<u32>(bitcast<i32>(info[2]) + i32(i) * bitcast<i32>(info[3]));\n";
                self.generated(body, words([n as i64, 0, *start as i32 as i64, *delta as i32 as i64]), n as usize, dtype, shape)
            }
            Op::Range { start, delta, .. } => {
                // Sequential, one invocation per chunk of ITERATIONS: each
                // chunk continues from the element before it.
                let body = "var x = bitcast<f32>(info[4]);\n\
                            if (info[2] > 0u) { x = bitcast<f32>(out[info[2] - 1u]) + bitcast<f32>(info[5]); }\n\
                            for (var j = info[2]; j < info[3]; j = j + 1u) { out[j] = bitcast<u32>(x); x = x + bitcast<f32>(info[5]); }\n";
                let out = self.buffer(n as usize);
                for first in (0..n).step_by(ITERATIONS) {
                    let end = n.min(first + ITERATIONS as u32);
                    let info = [1, 0, first, end, (*start as f32).to_bits(), (*delta as f32).to_bits()];
                    self.dispatch(&generate_kernel(body), &[&self.buffer_from(&info), &out], 1)?;
                }
                Ok(GpuTensor::new(out, dtype, shape))
            }
            _ => Err(OpError::unimplemented(format!("{} is not a generator", op.name()))),
        }
    }
}
