//! `GpuTensor`: a tensor of the device, with a dtype and a shape, and the
//! storage encoding both directions of `upload`/`download` share. Every
//! element is 32-bit words: `float32` and `int32` their bits, `bool` one
//! word 0 or 1 (WGSL has no bool in storage), `int64`/`float64` two words,
//! low first (only layout kernels and `ArgMax`'s output touch those).
//!
//! A value made on the host (an upload, or the result of an op placed on
//! the CPU) keeps its host tensor and gets a device buffer only when a
//! kernel first reads it; a download of it is that tensor. So a chain of
//! CPU-placed ops (float64 arithmetic, int64 loop counters) and the
//! predicates it computes never wait on the device's queue: each read back
//! is a round trip to the driver, the staged GPU run's main cost.

use crate::device::{internal, Gpu};
use graph::{DType, Data, OpError, Tensor};
use std::sync::{Arc, OnceLock};

/// A tensor on the device. Immutable once made, so clones share the storage.
#[derive(Clone, Debug)]
pub struct GpuTensor {
    storage: Arc<Storage>,
    dtype: DType,
    shape: Vec<usize>,
}

/// Where a value's elements are: on the device (a kernel's output), or on
/// the host with a device copy made on first use.
#[derive(Debug)]
struct Storage {
    host: Option<Tensor>,
    device: OnceLock<wgpu::Buffer>,
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
        GpuTensor { storage: Arc::new(Storage { host: None, device: OnceLock::from(buffer) }), dtype, shape }
    }

    /// A value held on the host until a kernel reads it.
    pub(crate) fn on_host(t: Tensor) -> GpuTensor {
        let (dtype, shape) = (t.dtype(), t.shape().to_vec());
        GpuTensor { storage: Arc::new(Storage { host: Some(t), device: OnceLock::new() }), dtype, shape }
    }

    /// The same storage seen with another shape of as many elements (reshape).
    pub(crate) fn reshaped(&self, shape: Vec<usize>) -> GpuTensor {
        GpuTensor { storage: self.storage.clone(), dtype: self.dtype, shape }
    }

    /// Whether `self` and `other` are the same elements seen the same way.
    pub(crate) fn same(&self, other: &GpuTensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage) && self.dtype == other.dtype && self.shape == other.shape
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
    /// `t` for the device: held on the host until a kernel reads it.
    pub fn upload(&self, t: &Tensor) -> Result<GpuTensor, OpError> {
        Ok(GpuTensor::on_host(t.clone()))
    }

    /// `t`'s device buffer, copied from its host tensor on first use.
    pub(crate) fn buffer_of<'t>(&self, t: &'t GpuTensor) -> &'t wgpu::Buffer {
        let storage = &t.storage;
        // Made by `new` (a buffer) or `on_host` (a host tensor): never neither.
        let host = || storage.host.as_ref().expect("a value without a buffer is on the host");
        storage.device.get_or_init(|| self.buffer_from(&words_of(host().data())))
    }

    /// Copies `t` back to the host (waits for the kernels that write it).
    pub fn download(&self, t: &GpuTensor) -> Result<Tensor, OpError> {
        Ok(self.download_many(&[t])?.pop().expect("one tensor"))
    }

    /// Copies each of `ts` back to the host, waiting once for all those
    /// only the device holds.
    pub fn download_many(&self, ts: &[&GpuTensor]) -> Result<Vec<Tensor>, OpError> {
        let on_device: Vec<&GpuTensor> = ts.iter().copied().filter(|t| t.storage.host.is_none()).collect();
        let reads: Vec<(&wgpu::Buffer, usize)> = on_device.iter().map(|t| (self.buffer_of(t), t.len() * width(t.dtype))).collect();
        let mut words = self.read_many(&reads)?.into_iter();
        ts.iter()
            .map(|t| match &t.storage.host {
                Some(host) if host.shape() == t.shape() => Ok(host.clone()),
                Some(host) => graph::eval(&graph::Op::Reshape { shape: t.shape.iter().map(|&d| d as i64).collect() }, &[host]),
                None => tensor_of(&words.next().expect("a read per tensor on the device"), t.dtype, &t.shape).map_err(internal),
            })
            .collect()
    }
}
