//! Reductions and `ArgMax`: the input's axes split into kept ones (one
//! invocation per output element) and reduced ones (folded in row-major
//! order), adjacent reduced axes merged when their strides allow, long
//! folds split over a chain of dispatches.

use super::{contiguous, count, words};
use crate::device::{groups_for, internal, Gpu};
use crate::tensor::{width, GpuTensor};
use crate::wgsl::reduce::{reduce_kernel, ITERATIONS};
use graph::{DType, Op, OpError};

/// Which axes `op` folds (`infer` has checked them).
fn reduced_mask(op: &Op, rank: usize) -> Vec<bool> {
    let norm = |a: i64| if a < 0 { (a + rank as i64) as usize } else { a as usize };
    match op {
        Op::ArgMax { axis } => (0..rank).map(|i| i == norm(*axis)).collect(),
        Op::ReduceSum { axis: Some(axes), .. }
        | Op::ReduceMax { axis: Some(axes), .. }
        | Op::ReduceMin { axis: Some(axes), .. }
        | Op::ReduceMean { axis: Some(axes), .. } => {
            let picked: Vec<usize> = axes.iter().map(|&a| norm(a)).collect();
            (0..rank).map(|i| picked.contains(&i)).collect()
        }
        _ => vec![true; rank],
    }
}

/// Dims and strides of one group of axes, merging neighbours that are contiguous.
fn merged(dims: Vec<(usize, i64)>) -> (Vec<usize>, Vec<i64>) {
    let mut out: Vec<(usize, i64)> = Vec::new();
    for (d, s) in dims {
        match out.last_mut() {
            Some(last) if last.1 == s * d as i64 => *last = (last.0 * d, s),
            _ => out.push((d, s)),
        }
    }
    out.into_iter().unzip()
}

impl Gpu {
    pub(crate) fn reduce(&self, op: &Op, x: &GpuTensor, dtype: DType, shape: Vec<usize>) -> Result<GpuTensor, OpError> {
        let kernel = reduce_kernel(op, x.dtype()).ok_or_else(|| internal(format!("no kernel for {} on {}", op.name(), x.dtype())))?;
        let n = count(&shape);
        let out = self.buffer(n * width(dtype));
        if n == 0 {
            return Ok(GpuTensor::new(out, dtype, shape));
        }
        let mask = reduced_mask(op, x.shape().len());
        let strides = contiguous(x.shape());
        let pick = |want: bool| -> Vec<(usize, i64)> {
            (0..mask.len()).filter(|&a| mask[a] == want).map(|a| (x.shape()[a], strides[a])).collect()
        };
        let (kept, kept_strides): (Vec<usize>, Vec<i64>) = pick(false).into_iter().unzip();
        let (red, red_strides) = merged(pick(true));
        let total = count(&red);
        let dims =
            [words(kept.iter().map(|&d| d as i64)), words(kept_strides), words(red.iter().map(|&d| d as i64)), words(red_strides)].concat();
        let state = self.buffer(2 * n);
        // Folds of at most `chunk` positions per dispatch (see wgsl/reduce.rs).
        let chunk = (ITERATIONS / (red.len() + 1)).max(1);
        let mut start = 0;
        loop {
            let stop = total.min(start + chunk);
            let mut info = words([n, kept.len(), red.len(), total, start, stop].map(|v| v as i64));
            info.extend(&dims);
            self.dispatch(&kernel, &[&self.buffer_from(&info), self.buffer_of(x), &out, &state], groups_for(n))?;
            if stop == total {
                break;
            }
            start = stop;
        }
        Ok(GpuTensor::new(out, dtype, shape))
    }
}
