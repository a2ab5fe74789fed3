//! Batched matmul on the tiled kernel (wgsl/matmul.rs).

use super::{count, words};
use crate::device::Gpu;
use crate::tensor::GpuTensor;
use crate::wgsl::matmul::{matmul_kernel, TILE};
use graph::{DType, OpError};

impl Gpu {
    pub(crate) fn matmul(&self, a: &GpuTensor, b: &GpuTensor, dtype: DType, shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        let r = shape.len();
        let (m, k, n) = (a.shape()[r - 2], a.shape()[r - 1], b.shape()[r - 1]);
        let out = self.buffer(count(&shape));
        let batches = count(&shape[..r - 2]);
        let (tm, tn) = (m.div_ceil(TILE as usize), n.div_ceil(TILE as usize));
        let groups = batches * tm * tn;
        if groups > 0 {
            let info = words([m, k, n, tm, tn, groups].map(|v| v as i64));
            self.dispatch(&matmul_kernel(dtype), &[&self.buffer_from(&info), &a.buffer, &b.buffer, &out], groups as u32)?;
        }
        Ok(GpuTensor::new(out, dtype, shape))
    }
}
