//! List ops (graph/src/list.rs) on the device. A list is a tensor `[n, *s]`
//! whose length `n` the host knows from its shape, so each op is a layout
//! op planned on the host, with no read back: a push is a concat with the
//! element as one row, the last element and the list without it are
//! indexing, the length is uploaded, and a stack along `axis` is the list
//! itself moved by a transpose. `graph::infer` has already raised what the
//! CPU raises (a pop from an empty list, an element of another type, a
//! stack of no elements).

use crate::device::Gpu;
use crate::tensor::GpuTensor;
use graph::{DType, IndexItem, Op, OpError};

impl Gpu {
    /// A new list: no elements, so no words to write.
    pub(crate) fn list_new(&self, element: &[usize], dtype: DType) -> GpuTensor {
        GpuTensor::new(self.buffer(0), dtype, std::iter::once(0).chain(element.iter().copied()).collect())
    }

    /// `op` on a list (`shape`: the result's, from `infer`).
    pub(crate) fn list_op(&self, op: &Op, inputs: &[&GpuTensor], dtype: DType, shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        let list = inputs[0];
        match op {
            Op::ListPush => {
                let row = inputs[1].reshaped(std::iter::once(1).chain(inputs[1].shape().iter().copied()).collect());
                self.concat(&[list, &row], 0, dtype, shape)
            }
            Op::ListLast => self.index(list, &[IndexItem::At(-1)], shape),
            Op::ListDrop => self.index(list, &[IndexItem::Slice { start: None, stop: Some(-1), step: None }], shape),
            Op::ListLen => self.upload(&graph::list_len(list.shape()[0])?),
            _ => Err(OpError::invalid(format!("{} is not a list op", op.name()))),
        }
    }

    /// `ListStack` along `ax` (normalised): the result's axis `ax` is the
    /// list's axis 0.
    pub(crate) fn list_stack(&self, list: &GpuTensor, ax: usize, shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        let perm: Vec<usize> = (1..=ax).chain([0]).chain(ax + 1..shape.len()).collect();
        self.transpose(list, &perm, shape)
    }
}
