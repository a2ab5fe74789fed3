//! stagecheck-graph: tensors, the kernels of the `sc.` tensor API, a graph IR
//! and its CPU executor. It knows nothing of Python, so kernels, IR and
//! executor build and test in seconds without RustPython; the executor
//! crate binds them to Python (`staging/src/tensors/`).
//!
//! The oracle compares eager and staged runs bit for bit, so both paths call
//! the same kernel, [`eval`]: eager execution calls it op by op, the graph
//! executor ([`run`]) calls it for every `Op` node. Kernels are sequential and
//! deterministic (sums accumulate in row-major order, matmul over `k` in order,
//! in the tensor's own dtype). [`infer`] gives an op's output dtype and shape
//! without computing (for tracing symbolic tensors) and agrees with `eval`.
//!
//! - [`DType`], [`Tensor`] (an `Arc`'d [`Data`]), [`Scalar`], [`Value`]; NumPy-style `Display`.
//! - [`Op`], [`IndexItem`], [`eval`], [`infer`], [`OpError`]/[`ErrorKind`]: TF dtype rules,
//!   NumPy broadcasting and indexing, wrapping integer overflow; never a panic.
//! - [`Library`], [`Function`] (params, declared results, nodes, outputs), [`Node`]
//!   (`Const`, `Op`, `Cond`, `While`, `Call`), [`validate`], S-expression printing
//!   (`Display` of `Library`), serde JSON with floats as exact text.
//! - Lists in staged loops ([`Op::ListPush`] and co., `list.rs`): a list is a tensor
//!   whose leading dimension, its length, is [`DYN`] in signatures (known at execution).
//! - [`run`]/[`Executor`]: conds and whiles run natively, calls on an explicit
//!   frame stack with a depth limit ([`MAX_DEPTH`]), values dropped after their last use.
//!
//! The crate's own rules where TF has none on CPU: integer `FloorDiv`/`Mod` by
//! zero is a `ZeroDivision` error; `Cast` follows Rust's `as` (see [`Op::Cast`]).

mod device;
mod dtype;
mod error;
mod eval;
mod exec;
mod float_text;
mod format;
mod infer;
mod ir;
mod kernels;
mod list;
mod op;
mod op_kinds;
mod plan;
pub mod planted;
mod scalar;
mod sexpr;
mod shape;
mod tensor;
mod tensor_serde;
mod validate;
mod value;

pub use device::{Cpu, Device};
pub use dtype::DType;
pub use error::{ErrorKind, OpError};
pub use eval::eval;
pub use exec::{run, Executor, HostFn, Plans, MAX_DEPTH};
pub use float_text::{f32_from_text, f32_to_text, f64_from_text, f64_to_text};
pub use format::{float32_repr, float64_repr, format_tensor};
pub use infer::infer;
pub use ir::{FnId, Function, Library, Node, Sig, ValueId};
pub use list::{has_dyn, list_len, PROBES};
pub use op::{IndexItem, Op, DYN};
pub use op_kinds::tag_of;
pub use scalar::Scalar;
pub use shape::{broadcast_shapes, MAX_ELEMENTS};
pub use tensor::{Data, Tensor};
pub use validate::{validate, validate_from};
pub use value::Value;
