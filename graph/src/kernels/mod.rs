//! The kernels behind `eval`, generic over element types (`elem.rs`): one
//! file per family of ops, each with the shape rule `infer` shares.

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
pub(crate) mod reduce;
pub(crate) mod scalar;
mod tanh32;
