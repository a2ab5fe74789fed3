//! `GpuTensor`: a device buffer with a dtype and a shape, and the storage
//! encoding both directions of `upload`/`download` share. Every element is
//! 32-bit words: `float32` and `int32` their bits, `bool` one word 0 or 1
//! (WGSL has no bool in storage), `int64`/`float64` two words, low first
//! (only layout kernels and `ArgMax`'s output touch those).

use crate::device::{internal, Gpu};
use graph::{DType, Data, OpError, Tensor};
use std::sync::Arc;

/// A tensor on the device. Immutable once made, so clones share the buffer.
#[derive(Clone, Debug)]
pub struct GpuTensor {
    pub(crate) buffer: Arc<wgpu::Buffer>,
    dtype: DType,
    shape: Vec<usize>,
}

/// 32-bit words per element.
pub(crate) fn width(dtype: DType) -> usize {
    match dtype {
        DType::Int64 | DType::Float64 => 2,
        _ => 1,
    }
}

impl GpuTensor {
    pub(crate) fn new(buffer: wgpu::Buffer, dtype: DType, shape: Vec<usize>) -> GpuTensor {
        GpuTensor { buffer: Arc::new(buffer), dtype, shape }
    }

    /// The same buffer seen with another shape of as many elements (reshape).
    pub(crate) fn reshaped(&self, shape: Vec<usize>) -> GpuTensor {
        GpuTensor { buffer: self.buffer.clone(), dtype: self.dtype, shape }
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn words_of(data: &Data) -> Vec<u32> {
    match data {
        Data::Bool(a) => a.iter().map(|&b| u32::from(b)).collect(),
        Data::I32(a) => a.iter().map(|&x| x as u32).collect(),
        Data::F32(a) => a.iter().map(|x| x.to_bits()).collect(),
        Data::I64(a) => a.iter().flat_map(|&x| split(x as u64)).collect(),
        Data::F64(a) => a.iter().flat_map(|x| split(x.to_bits())).collect(),
    }
}

fn split(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

fn join(w: &[u32]) -> u64 {
    u64::from(w[0]) | (u64::from(w[1]) << 32)
}

fn tensor_of(words: &[u32], dtype: DType, shape: &[usize]) -> Result<Tensor, OpError> {
    match dtype {
        DType::Bool => Tensor::from_bool(words.iter().map(|&w| w != 0).collect(), shape),
        DType::Int32 => Tensor::from_i32(words.iter().map(|&w| w as i32).collect(), shape),
        DType::Float32 => Tensor::from_f32(words.iter().map(|&w| f32::from_bits(w)).collect(), shape),
        DType::Int64 => Tensor::from_i64(words.chunks_exact(2).map(|w| join(w) as i64).collect(), shape),
        DType::Float64 => Tensor::from_f64(words.chunks_exact(2).map(|w| f64::from_bits(join(w))).collect(), shape),
    }
}

impl Gpu {
    /// Copies `t` to the device.
    pub fn upload(&self, t: &Tensor) -> Result<GpuTensor, OpError> {
        let buffer = self.buffer_from(&words_of(t.data()));
        Ok(GpuTensor::new(buffer, t.dtype(), t.shape().to_vec()))
    }

    /// Copies `t` back to the host (waits for the kernels that write it).
    pub fn download(&self, t: &GpuTensor) -> Result<Tensor, OpError> {
        Ok(self.download_many(&[t])?.pop().expect("one tensor"))
    }

    /// Copies each of `ts` back to the host, waiting once for all.
    pub fn download_many(&self, ts: &[&GpuTensor]) -> Result<Vec<Tensor>, OpError> {
        let reads: Vec<(&wgpu::Buffer, usize)> = ts.iter().map(|t| (&*t.buffer, t.len() * width(t.dtype))).collect();
        let words = self.read_many(&reads)?;
        ts.iter().zip(words).map(|(t, w)| tensor_of(&w, t.dtype, &t.shape).map_err(internal)).collect()
    }
}
