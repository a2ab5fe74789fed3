//! Element types of tensors: the five dtypes of the API and their names.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The element type of a tensor. Serialised and displayed by its NumPy/TF name
/// (`bool`, `int32`, `int64`, `float32`, `float64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Bool,
    Int32,
    Int64,
    Float32,
    Float64,
}

impl DType {
    /// All dtypes, in declaration order.
    pub const ALL: [DType; 5] = [DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64];

    /// The NumPy/TF name: `bool`, `int32`, `int64`, `float32`, `float64`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
        }
    }

    /// Parses a name as written by [`DType::name`].
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    pub fn is_bool(self) -> bool {
        self == DType::Bool
    }

    pub fn is_int(self) -> bool {
        matches!(self, DType::Int32 | DType::Int64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::Float32 | DType::Float64)
    }

    /// Int or float: the dtypes arithmetic accepts.
    pub fn is_numeric(self) -> bool {
        self.is_int() || self.is_float()
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
