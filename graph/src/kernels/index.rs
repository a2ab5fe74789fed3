//! NumPy basic indexing (`x[1, ::-1, None, ...]`): the plan (output shape and
//! which elements) from the items and the input shape, then a gather.

use crate::error::OpError;
use crate::op::IndexItem;
use crate::shape::{array_of, check_num_elements};
use ndarray::ArrayD;

/// What an index keeps of one input axis.
#[derive(Clone, Copy, Debug)]
enum Pick {
    /// One position: the axis disappears.
    At(usize),
    /// `len` positions `start, start + step, ...` (step may be negative).
    Run { start: i64, step: i64, len: usize },
}

/// The result of indexing a shape: the output shape, and for each output axis
/// the input axis it walks (`None` for a new axis).
#[derive(Clone, Debug)]
pub(crate) struct IndexPlan {
    picks: Vec<Pick>,
    out_axes: Vec<Option<usize>>,
    pub out_shape: Vec<usize>,
}

/// Python's `slice.indices(len)` and the slice length, without overflow.
fn slice_run(start: Option<i64>, stop: Option<i64>, step: Option<i64>, len: usize) -> Result<Pick, OpError> {
    let step = i128::from(step.unwrap_or(1));
    if step == 0 {
        return Err(OpError::invalid("slice step cannot be zero"));
    }
    let n = len as i128;
    let adjust = |v: Option<i64>, default_fwd: i128, default_back: i128| -> i128 {
        match v {
            None => {
                if step > 0 {
                    default_fwd
                } else {
                    default_back
                }
            }
            Some(v) => {
                let mut v = i128::from(v);
                if v < 0 {
                    v += n;
                    if v < 0 {
                        v = if step < 0 { -1 } else { 0 };
                    }
                } else if v >= n {
                    v = if step < 0 { n - 1 } else { n };
                }
                v
            }
        }
    };
    let start = adjust(start, 0, n - 1);
    let stop = adjust(stop, n, -1);
    let count = if step < 0 {
        if stop < start {
            (start - stop - 1) / (-step) + 1
        } else {
            0
        }
    } else if start < stop {
        (stop - start - 1) / step + 1
    } else {
        0
    };
    // With count <= 1 the step is never applied; clamp it so it fits an i64 offset.
    let step = if count <= 1 { 1 } else { step };
    Ok(Pick::Run { start: start.max(0) as i64, step: step as i64, len: count as usize })
}

impl IndexPlan {
    pub(crate) fn new(items: &[IndexItem], shape: &[usize]) -> Result<IndexPlan, OpError> {
        let rank = shape.len();
        let ellipses = items.iter().filter(|i| matches!(i, IndexItem::Ellipsis)).count();
        if ellipses > 1 {
            return Err(OpError::invalid("an index can only have a single ellipsis ('...')"));
        }
        let consumed = items.iter().filter(|i| matches!(i, IndexItem::At(_) | IndexItem::Slice { .. })).count();
        if consumed > rank {
            return Err(OpError::invalid(format!("too many indices for array: array is {rank}-dimensional, but {consumed} were indexed")));
        }
        let full = IndexItem::Slice { start: None, stop: None, step: None };
        let mut expanded: Vec<&IndexItem> = Vec::with_capacity(items.len() + rank);
        for item in items {
            if matches!(item, IndexItem::Ellipsis) {
                expanded.extend(std::iter::repeat_n(&full, rank - consumed));
            } else {
                expanded.push(item);
            }
        }
        if ellipses == 0 {
            expanded.extend(std::iter::repeat_n(&full, rank - consumed));
        }
        let mut plan = IndexPlan { picks: Vec::with_capacity(rank), out_axes: Vec::new(), out_shape: Vec::new() };
        for item in expanded {
            let axis = plan.picks.len();
            match *item {
                IndexItem::At(i) => {
                    let size = shape[axis];
                    let j = if i < 0 { i128::from(i) + size as i128 } else { i128::from(i) };
                    if j < 0 || j >= size as i128 {
                        return Err(OpError::invalid(format!("index {i} is out of bounds for axis {axis} with size {size}")));
                    }
                    plan.picks.push(Pick::At(j as usize));
                }
                IndexItem::Slice { start, stop, step } => {
                    let run = slice_run(start, stop, step, shape[axis])?;
                    if let Pick::Run { len, .. } = run {
                        plan.out_shape.push(len);
                    }
                    plan.out_axes.push(Some(axis));
                    plan.picks.push(run);
                }
                IndexItem::NewAxis => {
                    plan.out_axes.push(None);
                    plan.out_shape.push(1);
                }
                IndexItem::Ellipsis => {}
            }
        }
        check_num_elements(&plan.out_shape)?;
        Ok(plan)
    }

    /// The selected elements of `a` (whose shape the plan was made for).
    pub(crate) fn gather<T: Copy>(&self, a: &ArrayD<T>) -> Result<ArrayD<T>, OpError> {
        let internal = || OpError::invalid("internal error: index plan does not fit its input");
        if a.ndim() != self.picks.len() {
            return Err(internal());
        }
        let a = a.as_standard_layout();
        let src = a.as_slice().ok_or_else(internal)?;
        let mut strides = vec![1i64; a.ndim()];
        for ax in (0..a.ndim().saturating_sub(1)).rev() {
            strides[ax] = strides[ax + 1] * a.shape()[ax + 1] as i64;
        }
        let mut base = 0i64;
        for (ax, pick) in self.picks.iter().enumerate() {
            base += strides[ax]
                * match *pick {
                    Pick::At(i) => i as i64,
                    Pick::Run { start, .. } => start,
                };
        }
        let steps: Vec<i64> = self
            .out_axes
            .iter()
            .map(|ax| match ax.map(|a| (a, self.picks[a])) {
                Some((a, Pick::Run { step, .. })) => step * strides[a],
                _ => 0,
            })
            .collect();
        let total: usize = self.out_shape.iter().product();
        let mut out = Vec::with_capacity(total);
        let mut counter = vec![0usize; self.out_shape.len()];
        let mut offset = base;
        for _ in 0..total {
            out.push(*src.get(usize::try_from(offset).map_err(|_| internal())?).ok_or_else(internal)?);
            // Odometer: advance the last axis, carrying into earlier ones.
            for ax in (0..counter.len()).rev() {
                counter[ax] += 1;
                offset += steps[ax];
                if counter[ax] < self.out_shape[ax] {
                    break;
                }
                offset -= steps[ax] * counter[ax] as i64;
                counter[ax] = 0;
            }
        }
        array_of(&self.out_shape, out).map_err(|_| internal())
    }
}

/// `a[at]` along axis 0 (`Gather`): the row copied straight from contiguous
/// storage; anything else (an index out of range, for its error) through
/// the general plan.
pub(crate) fn gather_row<T: Copy>(a: &ArrayD<T>, at: i64) -> Result<ArrayD<T>, OpError> {
    let size = a.shape().first().copied().unwrap_or(0);
    let j = if at < 0 { i128::from(at) + size as i128 } else { i128::from(at) };
    if let (true, Some(src)) = (j >= 0 && j < size as i128, a.as_slice()) {
        let row = src.len() / size;
        let j = j as usize;
        let out = src[j * row..(j + 1) * row].to_vec();
        return array_of(&a.shape()[1..], out).map_err(|_| OpError::invalid("internal error: gather does not fit its input"));
    }
    IndexPlan::new(&[IndexItem::At(at)], a.shape())?.gather(a)
}
