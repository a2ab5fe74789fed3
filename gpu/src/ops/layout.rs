//! Layout ops as strided copies (wgsl/layout.rs), any dtype: transpose,
//! basic indexing, gather (an index read back, then indexing), concat and
//! stack. Reshape and identity share the input's buffer. `graph::infer` has
//! already checked every attribute, so the plans here assume valid ones.

use super::{contiguous, count, words};
use crate::device::{groups_for, Gpu};
use crate::tensor::{width, GpuTensor};
use crate::wgsl::layout::copy_kernel;
use graph::{DType, IndexItem, Op, OpError, Scalar};

/// A strided view: element coordinates `c` of `shape` at `base + Σ c·strides`.
pub(crate) struct View {
    pub shape: Vec<usize>,
    pub base: i64,
    pub strides: Vec<i64>,
}

/// Python's `slice.indices` start for a slice of a length-`n` axis (its
/// step is the slice's, default 1); the length comes from `infer`.
fn slice_start(start: Option<i64>, step: i64, n: usize) -> i64 {
    let n = n as i64;
    match start {
        None if step > 0 => 0,
        None => n - 1,
        Some(v) if v < 0 => (v + n).max(if step < 0 { -1 } else { 0 }),
        Some(v) if v >= n => {
            if step < 0 {
                n - 1
            } else {
                n
            }
        }
        Some(v) => v,
    }
}

/// The source view of `x[items]` (output shape from `infer`).
fn index_view(items: &[IndexItem], shape: &[usize], out_shape: Vec<usize>) -> View {
    let strides = contiguous(shape);
    let consumed = items.iter().filter(|i| matches!(i, IndexItem::At(_) | IndexItem::Slice { .. })).count();
    let full = IndexItem::Slice { start: None, stop: None, step: None };
    let fill = shape.len().saturating_sub(consumed);
    let mut expanded: Vec<&IndexItem> = Vec::new();
    for item in items {
        match item {
            IndexItem::Ellipsis => expanded.extend(std::iter::repeat_n(&full, fill)),
            _ => expanded.push(item),
        }
    }
    if !items.iter().any(|i| matches!(i, IndexItem::Ellipsis)) {
        expanded.extend(std::iter::repeat_n(&full, fill));
    }
    let (mut axis, mut base, mut steps) = (0usize, 0i64, Vec::new());
    for item in expanded {
        match *item {
            IndexItem::At(i) => {
                base += (if i < 0 { i + shape[axis] as i64 } else { i }) * strides[axis];
                axis += 1;
            }
            IndexItem::Slice { start, step, .. } => {
                let step = step.unwrap_or(1);
                base += slice_start(start, step, shape[axis]).max(0) * strides[axis];
                steps.push(step.saturating_mul(strides[axis]));
                axis += 1;
            }
            IndexItem::NewAxis => steps.push(0),
            IndexItem::Ellipsis => {}
        }
    }
    View { shape: out_shape, base, strides: steps }
}

impl Gpu {
    /// Copies `view` of `src` into `out` at `(base, strides)` (row-major `view.shape`).
    pub(crate) fn copy(&self, src: &GpuTensor, view: &View, out: &wgpu::Buffer, dst: (i64, &[i64])) -> Result<(), OpError> {
        let n = count(&view.shape);
        if n == 0 {
            return Ok(());
        }
        let rank = view.shape.len() as i64;
        let mut info = words([n as i64, rank, width(src.dtype()) as i64, view.base, dst.0]);
        info.extend(words(view.shape.iter().map(|&d| d as i64)));
        info.extend(words(view.strides.iter().copied()));
        info.extend(words(dst.1.iter().copied()));
        self.dispatch(&copy_kernel(), &[&self.buffer_from(&info), self.buffer_of(src), out], groups_for(n))
    }

    /// A new tensor holding `view` of `src` in row-major order.
    fn gathered(&self, src: &GpuTensor, view: View) -> Result<GpuTensor, OpError> {
        let out = self.buffer(count(&view.shape) * width(src.dtype()));
        self.copy(src, &view, &out, (0, &contiguous(&view.shape)))?;
        Ok(GpuTensor::new(out, src.dtype(), view.shape))
    }

    pub(crate) fn transpose(&self, x: &GpuTensor, perm: &[usize], shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        let own = contiguous(x.shape());
        self.gathered(x, View { shape, base: 0, strides: perm.iter().map(|&p| own[p]).collect() })
    }

    pub(crate) fn index(&self, x: &GpuTensor, items: &[IndexItem], shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        self.gathered(x, index_view(items, x.shape(), shape))
    }

    /// `params[index]`: the index is read back, then it is `Index` (same checks, same messages).
    pub(crate) fn gather(&self, params: &GpuTensor, index: &GpuTensor) -> Result<GpuTensor, OpError> {
        let at = match self.download(index)?.to_scalar() {
            Some(Scalar::I32(i)) => i64::from(i),
            Some(Scalar::I64(i)) => i,
            _ => return Err(OpError::invalid("internal error: GatherV2 got inputs of unexpected dtypes")),
        };
        self.eval(&Op::Index { items: vec![IndexItem::At(at)] }, &[params])
    }

    /// Concatenation along `axis` (normalised): each input copied into its block.
    pub(crate) fn concat(&self, inputs: &[&GpuTensor], axis: usize, dtype: DType, shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        let out = self.buffer(count(&shape) * width(dtype));
        let (outer, inner) = (count(&shape[..axis]), count(&shape[axis + 1..]));
        let total = shape[axis];
        let mut at = 0usize;
        for x in inputs {
            let size = x.shape().get(axis).copied().unwrap_or(1);
            let block = [outer, size, inner];
            let view = View { shape: block.to_vec(), base: 0, strides: contiguous(&block) };
            let dst = [(total * inner) as i64, inner as i64, 1];
            self.copy(x, &view, &out, ((at * inner) as i64, &dst))?;
            at += size;
        }
        Ok(GpuTensor::new(out, dtype, shape))
    }
}
