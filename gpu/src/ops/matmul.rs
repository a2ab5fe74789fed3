//! Batched matmul on the tiled kernel (wgsl/matmul.rs).

use super::{count, words};
use crate::device::Gpu;
use crate::tensor::GpuTensor;
use crate::wgsl::matmul::{matmul_kernel, TILE};
use crate::wgsl::reduce::ITERATIONS;
use graph::{DType, OpError};

impl Gpu {
    pub(crate) fn matmul(&self, a: &GpuTensor, b: &GpuTensor, dtype: DType, shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        let r = shape.len();
        let (m, k, n) = (a.shape()[r - 2], a.shape()[r - 1], b.shape()[r - 1]);
        let out = self.buffer(count(&shape));
        let batches = count(&shape[..r - 2]);
        let (tm, tn) = (m.div_ceil(TILE as usize), n.div_ceil(TILE as usize));
        let groups = batches * tm * tn;
        let steps = k.div_ceil(TILE as usize);
        // Each step loops TILE + 1 times: keep a dispatch within ITERATIONS.
        let chunk = ITERATIONS / (TILE as usize + 1);
        let mut first = 0;
        if groups == 0 {
            return Ok(GpuTensor::new(out, dtype, shape));
        }
        loop {
            let end = steps.min(first + chunk);
            let info = words([m, k, n, tm, tn, groups, first, end].map(|v| v as i64));
            self.dispatch(&matmul_kernel(dtype), &[&self.buffer_from(&info), self.buffer_of(a), self.buffer_of(b), &out], groups as u32)?;
            if end == steps {
                break;
            }
            first = end;
        }
        Ok(GpuTensor::new(out, dtype, shape))
    }
}
