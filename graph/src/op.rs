//! The ops of the tensor API with their static attributes. `eval` (eval.rs)
//! computes one, `infer` (infer.rs) gives its output dtype and shape.

use crate::dtype::DType;
use serde::{Deserialize, Serialize};

/// One item of a NumPy basic index (`x[1, ::-1, None, ...]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexItem {
    /// `x[i]`: removes the axis; negative counts from the end; out of range is an error.
    At(i64),
    /// `x[start:stop:step]` with Python's clamping; step 0 is an error.
    Slice { start: Option<i64>, stop: Option<i64>, step: Option<i64> },
    /// `None`/`np.newaxis`: inserts an axis of size 1.
    NewAxis,
    /// `...`: as many full slices as needed (at most one per index).
    Ellipsis,
}

/// A tensor op. Dtype rules are TensorFlow's (see `infer`); element rules are
/// documented on the variants and in `kernels/`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
#[rustfmt::skip]
pub enum Op {
    // Unary, elementwise.
    /// Ints wrap (`-MIN == MIN`).
    Neg,
    /// Ints wrap (`abs(MIN) == MIN`).
    Abs,
    Exp,
    Log,
    Sqrt,
    /// float32: the crate's own, equal to float64 `tanh` rounded to float32
    /// (`kernels/tanh32.rs`); float64: libm's.
    Tanh,
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
    /// `x > 0 ? x : 0`; NaN stays NaN.
    Relu,
    /// `~` on bool tensors.
    LogicalNot,
    /// `~` on int tensors (bitwise not).
    Invert,

    // Binary, elementwise with NumPy broadcasting; both inputs of one dtype.
    Add,
    Sub,
    Mul,
    /// True division: ints give `float64` (as TF's `truediv`); float / 0 is IEEE.
    Div,
    /// Floor division; int by zero is a `ZeroDivision` error; floats: `floor(x / y)`.
    FloorDiv,
    /// Floor modulo, result has the divisor's sign (Python's `%`); int by zero is
    /// a `ZeroDivision` error; floats: `fmod` adjusted to the divisor's sign.
    Mod,
    /// Ints: wrapping, negative exponents are an error; floats: `powf`.
    Pow,
    /// NaN propagates.
    Maximum,
    /// NaN propagates.
    Minimum,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    BitXor,

    /// `[..., m, k] @ [..., k, n]`, equal batch dims, rank >= 2; sums over `k` in order.
    #[serde(rename = "matmul")]
    MatMul,

    // Reductions: `axis: None` reduces all axes; negative axes count from the end.
    /// Sequential sum in row-major order, in the input dtype (ints wrap).
    ReduceSum { axis: Option<Vec<i64>>, keepdims: bool },
    /// Error on an empty reduction; NaN propagates.
    ReduceMax { axis: Option<Vec<i64>>, keepdims: bool },
    /// Error on an empty reduction; NaN propagates.
    ReduceMin { axis: Option<Vec<i64>>, keepdims: bool },
    /// The sum divided by the count in the input dtype: ints truncate (TF).
    ReduceMean { axis: Option<Vec<i64>>, keepdims: bool },
    /// Index (`int64`) of the first maximum along `axis`; NaN counts as the maximum.
    ArgMax { axis: i64 },

    /// `where(cond, x, y)`: bool `cond`, `x` and `y` of one dtype, all broadcast.
    Where,
    /// Float → int: truncation toward zero, saturating at the int range, NaN → 0
    /// (Rust's `as`); int → int wraps; → float rounds to nearest; → bool: `x != 0`
    /// (NaN → true); bool → number: 0 or 1.
    Cast { dtype: DType },
    /// Row-major reshape; one dimension may be -1.
    Reshape { shape: Vec<i64> },
    /// `perm: None` reverses the axes.
    Transpose { perm: Option<Vec<usize>> },
    /// One or more inputs of one dtype and rank >= 1, equal but for `axis`.
    Concat { axis: i64 },
    /// One or more inputs of one dtype and shape; `axis` in `[-(rank+1), rank]`.
    Stack { axis: i64 },
    /// NumPy basic indexing.
    Index { items: Vec<IndexItem> },
    /// `params[index]` along axis 0 with a run-time scalar index (int32 or
    /// int64; negative counts from the end): what a staged `for` over a
    /// tensor reads each iteration. TF's `gather` with a scalar index.
    Gather,
    /// Checks `(start, limit, delta)` scalars of one dtype as `Range` would
    /// (same errors, same messages) and gives `start`: a staged `for` over
    /// `range` with run-time bounds counts instead of materialising.
    RangeCheck,

    // Generators: no inputs.
    /// `zeros`/`ones`/`fill`: `value` converted to `dtype` as by `Cast`.
    Fill {
        shape: Vec<usize>,
        dtype: DType,
        #[serde(with = "crate::float_text::serde_f64")]
        value: f64,
    },
    /// TF's `range`: `start, start+delta, ...` while before `limit`, accumulated
    /// in `dtype`. Errors: delta 0, delta of the wrong sign (TF, not Python),
    /// non-integral bounds for int dtypes, non-finite bounds, `bool`.
    Range {
        #[serde(with = "crate::float_text::serde_f64")]
        start: f64,
        #[serde(with = "crate::float_text::serde_f64")]
        limit: f64,
        #[serde(with = "crate::float_text::serde_f64")]
        delta: f64,
        dtype: DType,
    },
    /// The `n` x `n` identity matrix.
    Eye { n: usize, dtype: DType },

    Identity,

    // Lists (`list.rs` for the design): a list of elements of one dtype
    // and shape is a tensor whose leading dimension is its length, [`DYN`]
    // in signatures (known only at execution).
    /// An empty list of `dtype` elements of shape `shape`: `[0, *shape]`.
    ListNew { shape: Vec<usize>, dtype: DType },
    /// `(list, x)`: the list with `x` appended (`x` has the element's dtype and shape).
    ListPush,
    /// The last element of a list; of an empty one, `IndexError: pop from empty list`.
    ListLast,
    /// The list without its last element; same error as `ListLast` when empty.
    ListDrop,
    /// The list's length, an `int32` scalar.
    ListLen,
    /// `sc.stack(list, axis)`: `Stack` of the elements (the same errors:
    /// an empty list has none to stack).
    ListStack { axis: i64 },
}

/// A dimension known only at execution in a signature (a list's length):
/// see `list.rs`. Never a dimension of a tensor.
pub const DYN: usize = usize::MAX;

impl Op {
    /// TF-style name for messages: `Add`, `FloorDiv`, `ReduceSum`.
    pub fn name(&self) -> &'static str {
        use Op::*;
        match self {
            Neg => "Neg",
            Abs => "Abs",
            Exp => "Exp",
            Log => "Log",
            Sqrt => "Sqrt",
            Tanh => "Tanh",
            Sigmoid => "Sigmoid",
            Relu => "Relu",
            LogicalNot => "LogicalNot",
            Invert => "Invert",
            Add => "Add",
            Sub => "Sub",
            Mul => "Mul",
            Div => "Div",
            FloorDiv => "FloorDiv",
            Mod => "Mod",
            Pow => "Pow",
            Maximum => "Maximum",
            Minimum => "Minimum",
            Eq => "Equal",
            Ne => "NotEqual",
            Lt => "Less",
            Le => "LessEqual",
            Gt => "Greater",
            Ge => "GreaterEqual",
            BitAnd => "BitwiseAnd",
            BitOr => "BitwiseOr",
            BitXor => "BitwiseXor",
            MatMul => "MatMul",
            ReduceSum { .. } => "ReduceSum",
            ReduceMax { .. } => "ReduceMax",
            ReduceMin { .. } => "ReduceMin",
            ReduceMean { .. } => "ReduceMean",
            ArgMax { .. } => "ArgMax",
            Where => "Where",
            Cast { .. } => "Cast",
            Reshape { .. } => "Reshape",
            Transpose { .. } => "Transpose",
            Concat { .. } => "Concat",
            Stack { .. } => "Stack",
            Index { .. } => "Index",
            Gather => "GatherV2",
            RangeCheck => "Range",
            Fill { .. } => "Fill",
            Range { .. } => "Range",
            Eye { .. } => "Eye",
            Identity => "Identity",
            ListNew { .. } => "TensorListReserve",
            ListPush => "TensorListPushBack",
            ListLast | ListDrop => "TensorListPopBack",
            ListLen => "TensorListLength",
            ListStack { .. } => "TensorListStack",
        }
    }

    /// The snake_case name used in JSON (`"op"`) and S-expressions: `add`, `floor_div`.
    pub fn sexpr_name(&self) -> &'static str {
        use Op::*;
        match self {
            Neg => "neg",
            Abs => "abs",
            Exp => "exp",
            Log => "log",
            Sqrt => "sqrt",
            Tanh => "tanh",
            Sigmoid => "sigmoid",
            Relu => "relu",
            LogicalNot => "logical_not",
            Invert => "invert",
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            FloorDiv => "floor_div",
            Mod => "mod",
            Pow => "pow",
            Maximum => "maximum",
            Minimum => "minimum",
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            BitAnd => "bit_and",
            BitOr => "bit_or",
            BitXor => "bit_xor",
            MatMul => "matmul",
            ReduceSum { .. } => "reduce_sum",
            ReduceMax { .. } => "reduce_max",
            ReduceMin { .. } => "reduce_min",
            ReduceMean { .. } => "reduce_mean",
            ArgMax { .. } => "arg_max",
            Where => "where",
            Cast { .. } => "cast",
            Reshape { .. } => "reshape",
            Transpose { .. } => "transpose",
            Concat { .. } => "concat",
            Stack { .. } => "stack",
            Index { .. } => "index",
            Gather => "gather",
            RangeCheck => "range_check",
            Fill { .. } => "fill",
            Range { .. } => "range",
            Eye { .. } => "eye",
            Identity => "identity",
            ListNew { .. } => "list_new",
            ListPush => "list_push",
            ListLast => "list_last",
            ListDrop => "list_drop",
            ListLen => "list_len",
            ListStack { .. } => "list_stack",
        }
    }

    /// How many inputs the op takes: `None` for the variadic `Concat`/`Stack` (one or more).
    pub fn arity(&self) -> Option<usize> {
        use Op::*;
        match self {
            Neg | Abs | Exp | Log | Sqrt | Tanh | Sigmoid | Relu | LogicalNot | Invert | Identity => Some(1),
            ReduceSum { .. } | ReduceMax { .. } | ReduceMin { .. } | ReduceMean { .. } | ArgMax { .. } => Some(1),
            Cast { .. } | Reshape { .. } | Transpose { .. } | Index { .. } => Some(1),
            Add | Sub | Mul | Div | FloorDiv | Mod | Pow | Maximum | Minimum => Some(2),
            Eq | Ne | Lt | Le | Gt | Ge | BitAnd | BitOr | BitXor | MatMul => Some(2),
            Where => Some(3),
            Gather => Some(2),
            RangeCheck => Some(3),
            Concat { .. } | Stack { .. } => None,
            Fill { .. } | Range { .. } | Eye { .. } | ListNew { .. } => Some(0),
            ListPush => Some(2),
            ListLast | ListDrop | ListLen | ListStack { .. } => Some(1),
        }
    }

    /// The list ops, whose first input (`ListNew`: output) is a list.
    pub fn is_list_op(&self) -> bool {
        use Op::*;
        matches!(self, ListNew { .. } | ListPush | ListLast | ListDrop | ListLen | ListStack { .. })
    }
}
