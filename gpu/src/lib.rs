//! stagecheck-gpu: the ops of `stagecheck-graph` on a GPU, through wgpu's
//! Vulkan backend (a real GPU, or Mesa's lavapipe on the CPU), as WGSL
//! compute kernels generated per op family × dtype.
//!
//! - [`Gpu`] (device, queue, pipeline cache), [`shared`], [`GpuUnavailable`].
//! - [`GpuTensor`]: a device buffer with dtype and shape; [`Gpu::upload`] and
//!   [`Gpu::download`] are the only copies, ops take and return device tensors.
//! - [`Gpu::eval`]: `graph::eval` on the device: same dtype, shape and errors
//!   (`graph::infer` first; value errors through a flag the kernel sets).
//!   Kernels cover `bool`, `int32`, `float32`; [`Gpu::placed_on_gpu`] says
//!   which ops run on the CPU instead (int64/float64 arithmetic: explicit
//!   placement, TensorFlow's rule), and `eval` runs those through `graph::eval`.
//! - [`tolerance`]: the documented float32 tolerance per op against the CPU;
//!   [`check_op`] applies it to a result (subnormals possibly flushed, a
//!   float32 matmul within its dot product bound: the WGSL spec's terms).
//!
//! Exactness: ints and bools are bit-exact (Rust's wrapping, floor division
//! and `as` rules written out in WGSL); float `+ - *`, comparisons, selects,
//! casts, layout ops, sums and float `%` (exact fmod) match the CPU bit for
//! bit, up to subnormals a GPU may flush to zero (WGSL allows it; lavapipe
//! keeps them); `/`, `exp`, `log`, `sqrt`, `tanh`, `sigmoid`, `pow` and the
//! mean's division are within [`tolerance`]; float32 matmul adds over `k` in
//! the CPU's order, but a driver may fuse multiply-adds (NVIDIA's does): it
//! is within the dot product bound ([`check_op`]). Reductions fold each
//! output's elements sequentially in row-major order on one invocation (the
//! CPU's order), trading parallelism within a reduction for identical sums.
//!
//! lavapipe (llvmpipe) facts met, each handled where it bites: an
//! invocation's loops stop silently after 32767 iterations in all (long
//! folds and matmuls run as chains of dispatches, each continuing the last:
//! `wgsl/reduce.rs`, `wgsl/matmul.rs`); `log`/`log2`/`sqrt` read subnormal
//! inputs as normal ones (scaled by 2^24 first, `wgsl/helpers.wgsl`); `pow`
//! was 40% off near 2^127 (exponent split); `exp` flushes subnormal results
//! (within the tolerance); bindings stop at 128 MiB (larger tensors go
//! through `graph::eval`, `eval.rs`).

mod device;
mod eval;
mod graph_device;
mod ops;
mod placement;
pub mod planted;
mod tensor;
mod tolerance;
mod wgsl;

pub use device::{shared, Gpu, GpuUnavailable};
pub use graph_device::{GpuDevice, Mismatch};
pub use tensor::GpuTensor;
pub use tolerance::{check_op, dot_bound, tolerance, tolerance_for, Tolerance};
