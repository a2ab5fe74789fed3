//! The kernels behind `eval`, generic over element types (`elem.rs`): one
//! file per family of ops, each with the shape rule `infer` shares.
//!
//! Speed on small tensors without changing a bit: `matmul_tiles.rs`,
//! `first_extreme.rs`, `tanh32.rs`, `in_place.rs` and `scalar.rs` (each says
//! how); tanh and matmul loops are also compiled for AVX2 and AVX-512F,
//! chosen at run time (same operations, same bits); `shape::array_of` and
//! `scalar::zero_d` build outputs of rank <= 2 without ndarray's
//! dynamic-shape work. Contiguous shortcuts (a row broadcast, a matrix
//! transpose (`layout::transpose_into`, matmul's thin products too), a
//! gathered row, trailing reductions, a whole-tensor max/min/argmax, a 0-d
//! cast) sit in their family's file.

pub(crate) mod cast;
pub(crate) mod elem;
pub(crate) mod elementwise;
mod first_extreme;
pub(crate) mod generate;
pub(crate) mod in_place;
pub(crate) mod index;
pub(crate) mod layout;
pub(crate) mod matmul;
pub(crate) mod matmul_tiles;
mod pool;
pub(crate) mod reduce;
pub(crate) mod scalar;
mod tanh32;
