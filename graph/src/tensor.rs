//! Tensors: an n-d array of one of the five dtypes behind an `Arc`, so values
//! are cheap to clone and share between the graph executor's frames.

use crate::dtype::DType;
use crate::error::OpError;
use crate::scalar::Scalar;
use crate::shape::check_num_elements;
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};
use std::sync::Arc;

/// The elements of a tensor, one variant per dtype.
#[derive(Clone, Debug)]
pub enum Data {
    Bool(ArrayD<bool>),
    I32(ArrayD<i32>),
    I64(ArrayD<i64>),
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
}

/// Applies `$body` to the array of any variant, bound to `$a`.
macro_rules! with_array {
    ($data:expr, $a:ident => $body:expr) => {
        match $data {
            $crate::tensor::Data::Bool($a) => $body,
            $crate::tensor::Data::I32($a) => $body,
            $crate::tensor::Data::I64($a) => $body,
            $crate::tensor::Data::F32($a) => $body,
            $crate::tensor::Data::F64($a) => $body,
        }
    };
}
pub(crate) use with_array;

impl Data {
    pub fn dtype(&self) -> DType {
        match self {
            Data::Bool(_) => DType::Bool,
            Data::I32(_) => DType::Int32,
            Data::I64(_) => DType::Int64,
            Data::F32(_) => DType::Float32,
            Data::F64(_) => DType::Float64,
        }
    }

    pub fn shape(&self) -> &[usize] {
        with_array!(self, a => a.shape())
    }
}

/// An immutable tensor. Cloning shares the elements.
///
/// `PartialEq` is bit equality: same dtype, same shape, same bits per element
/// (`NaN == NaN` when the bits agree, `0.0 != -0.0`), the oracle's notion.
#[derive(Clone, Debug)]
pub struct Tensor(Arc<Data>);

fn from_vec<T>(values: Vec<T>, shape: &[usize], wrap: fn(ArrayD<T>) -> Data) -> Result<Tensor, OpError> {
    let n = check_num_elements(shape)?;
    if n != values.len() {
        return Err(OpError::invalid(format!("{} values cannot fill a tensor of shape {:?}", values.len(), shape)));
    }
    let array = ArrayD::from_shape_vec(IxDyn(shape), values).map_err(|e| OpError::invalid(e.to_string()))?;
    Ok(Tensor::new(wrap(array)))
}

impl Tensor {
    pub fn new(data: Data) -> Tensor {
        Tensor(Arc::new(data))
    }

    pub fn data(&self) -> &Data {
        &self.0
    }

    /// The elements to write, when this is the only reference to them.
    ///
    /// `Arc::get_mut` would lock the weak count with a compare-exchange, a
    /// locked instruction that was a tenth of the executor's time in a loop of
    /// small in-place ops. A `Tensor`'s `Arc` is private and never downgraded
    /// (no `Weak` exists), so a strong count of one means `self` is the only
    /// reference: no other thread can reach the elements, nor clone one
    /// that could.
    pub(crate) fn data_mut(&mut self) -> Option<&mut Data> {
        if Arc::strong_count(&self.0) != 1 {
            return None;
        }
        // The last other owner's reads of the elements happen before our
        // writes (its drop released; this acquires), as in `Arc::get_mut`.
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        // SAFETY: unique as argued above, and `&mut self` keeps it so for the
        // borrow's life; `as_ptr` keeps the allocation's write permission (it
        // is `Arc::get_mut_unchecked`'s access).
        Some(unsafe { &mut *Arc::as_ptr(&self.0).cast_mut() })
    }

    /// The elements, without copying when this is the only reference.
    pub fn into_data(self) -> Data {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| (*shared).clone())
    }

    pub fn dtype(&self) -> DType {
        self.0.dtype()
    }

    pub fn shape(&self) -> &[usize] {
        self.0.shape()
    }

    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row-major `values` shaped as `shape`; the count must match.
    pub fn from_bool(values: Vec<bool>, shape: &[usize]) -> Result<Tensor, OpError> {
        from_vec(values, shape, Data::Bool)
    }

    pub fn from_i32(values: Vec<i32>, shape: &[usize]) -> Result<Tensor, OpError> {
        from_vec(values, shape, Data::I32)
    }

    pub fn from_i64(values: Vec<i64>, shape: &[usize]) -> Result<Tensor, OpError> {
        from_vec(values, shape, Data::I64)
    }

    pub fn from_f32(values: Vec<f32>, shape: &[usize]) -> Result<Tensor, OpError> {
        from_vec(values, shape, Data::F32)
    }

    pub fn from_f64(values: Vec<f64>, shape: &[usize]) -> Result<Tensor, OpError> {
        from_vec(values, shape, Data::F64)
    }

    /// A 0-d tensor holding `s`.
    pub fn scalar(s: Scalar) -> Tensor {
        let data = match s {
            Scalar::Bool(v) => Data::Bool(ArrayD::from_elem(IxDyn(&[]), v)),
            Scalar::I32(v) => Data::I32(ArrayD::from_elem(IxDyn(&[]), v)),
            Scalar::I64(v) => Data::I64(ArrayD::from_elem(IxDyn(&[]), v)),
            Scalar::F32(v) => Data::F32(ArrayD::from_elem(IxDyn(&[]), v)),
            Scalar::F64(v) => Data::F64(ArrayD::from_elem(IxDyn(&[]), v)),
        };
        Tensor::new(data)
    }

    pub fn scalar_bool(v: bool) -> Tensor {
        Tensor::scalar(Scalar::Bool(v))
    }

    pub fn scalar_i32(v: i32) -> Tensor {
        Tensor::scalar(Scalar::I32(v))
    }

    pub fn scalar_i64(v: i64) -> Tensor {
        Tensor::scalar(Scalar::I64(v))
    }

    pub fn scalar_f32(v: f32) -> Tensor {
        Tensor::scalar(Scalar::F32(v))
    }

    pub fn scalar_f64(v: f64) -> Tensor {
        Tensor::scalar(Scalar::F64(v))
    }

    /// The element at `index` (one entry per axis), or `None` when out of range.
    pub fn get(&self, index: &[usize]) -> Option<Scalar> {
        match self.data() {
            Data::Bool(a) => a.get(index).map(|&v| Scalar::Bool(v)),
            Data::I32(a) => a.get(index).map(|&v| Scalar::I32(v)),
            Data::I64(a) => a.get(index).map(|&v| Scalar::I64(v)),
            Data::F32(a) => a.get(index).map(|&v| Scalar::F32(v)),
            Data::F64(a) => a.get(index).map(|&v| Scalar::F64(v)),
        }
    }

    /// The element of a 0-d tensor; `None` for any other rank.
    pub fn to_scalar(&self) -> Option<Scalar> {
        if self.ndim() == 0 {
            self.get(&[])
        } else {
            None
        }
    }

    /// All elements in row-major order.
    pub fn scalars(&self) -> Vec<Scalar> {
        match self.data() {
            Data::Bool(a) => a.iter().map(|&v| Scalar::Bool(v)).collect(),
            Data::I32(a) => a.iter().map(|&v| Scalar::I32(v)).collect(),
            Data::I64(a) => a.iter().map(|&v| Scalar::I64(v)).collect(),
            Data::F32(a) => a.iter().map(|&v| Scalar::F32(v)).collect(),
            Data::F64(a) => a.iter().map(|&v| Scalar::F64(v)).collect(),
        }
    }

    /// Nested Python values (`.numpy().tolist()`): a scalar for a 0-d tensor,
    /// else lists nested `ndim` deep.
    pub fn to_value(&self) -> Value {
        let flat: Vec<Value> = self.scalars().into_iter().map(Scalar::to_value).collect();
        nest(&mut flat.into_iter(), self.shape())
    }

    /// Same dtype, same shape, same bits in every element.
    pub fn bit_eq(&self, other: &Tensor) -> bool {
        if Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        if self.dtype() != other.dtype() || self.shape() != other.shape() {
            return false;
        }
        match (self.data(), other.data()) {
            (Data::Bool(a), Data::Bool(b)) => a.iter().eq(b.iter()),
            (Data::I32(a), Data::I32(b)) => a.iter().eq(b.iter()),
            (Data::I64(a), Data::I64(b)) => a.iter().eq(b.iter()),
            (Data::F32(a), Data::F32(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            (Data::F64(a), Data::F64(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            _ => false,
        }
    }
}

fn nest(flat: &mut impl Iterator<Item = Value>, shape: &[usize]) -> Value {
    match shape.split_first() {
        None => flat.next().unwrap_or(Value::List(Vec::new())),
        Some((&n, rest)) => Value::List((0..n).map(|_| nest(flat, rest)).collect()),
    }
}

impl PartialEq for Tensor {
    fn eq(&self, other: &Tensor) -> bool {
        self.bit_eq(other)
    }
}

impl From<Data> for Tensor {
    fn from(data: Data) -> Tensor {
        Tensor::new(data)
    }
}
