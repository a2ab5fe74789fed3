//! The types the generator tracks for variables and expressions: Python ints
//! and lists of ints (plain family), tensors by dtype and shape and Python int
//! hyper-parameters (tensor family). Every expression is built for one type,
//! so no program mixes them by accident.

/// A tensor's element type: the five of the `sc` API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DType {
    Bool,
    I32,
    I64,
    F32,
    F64,
}

impl DType {
    pub fn sc(self) -> &'static str {
        match self {
            DType::Bool => "sc.bool",
            DType::I32 => "sc.int32",
            DType::I64 => "sc.int64",
            DType::F32 => "sc.float32",
            DType::F64 => "sc.float64",
        }
    }

    pub fn is_int(self) -> bool {
        matches!(self, DType::I32 | DType::I64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    /// Arithmetic, ordering and reductions accept it (not bool).
    pub fn is_num(self) -> bool {
        self != DType::Bool
    }

    /// The dtype `sc.constant` gives a Python literal of this kind without
    /// an explicit dtype (int32, float32, bool); int64/float64 need theirs.
    pub fn is_default(self) -> bool {
        matches!(self, DType::Bool | DType::I32 | DType::F32)
    }
}

/// A tensor's shape: scalar, vector or matrix, each dimension 1..=4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Scalar,
    Vec(u8),
    Mat(u8, u8),
}

impl Shape {
    pub fn count(self) -> u8 {
        match self {
            Shape::Scalar => 1,
            Shape::Vec(n) => n,
            Shape::Mat(r, c) => r * c,
        }
    }

    pub fn rank(self) -> usize {
        match self {
            Shape::Scalar => 0,
            Shape::Vec(_) => 1,
            Shape::Mat(..) => 2,
        }
    }

    /// The shape as a Python list (`[2, 3]`).
    pub fn list(self) -> String {
        match self {
            Shape::Scalar => "[]".into(),
            Shape::Vec(n) => format!("[{n}]"),
            Shape::Mat(r, c) => format!("[{r}, {c}]"),
        }
    }
}

/// A tensor type: dtype and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TTy {
    pub dtype: DType,
    pub shape: Shape,
}

impl TTy {
    pub fn new(dtype: DType, shape: Shape) -> Self {
        TTy { dtype, shape }
    }
}

/// The type of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A Python int (bools count: they are ints).
    Int,
    /// A Python list of ints.
    List,
    /// An instance of a generated class (plain family): an int attribute `x`,
    /// a list attribute `items`, a `__repr__` of its own (never an address).
    Obj,
    /// A tensor.
    Tensor(TTy),
    /// A Python int a staged function takes as a hyper-parameter: read, never
    /// written (a staged loop may not change a Python value).
    Hyper,
    /// A staged function's tensor parameter whose dtype or shape differs
    /// between calls (a retrace each): read through `tensor_calls.rs` only.
    Poly,
}
