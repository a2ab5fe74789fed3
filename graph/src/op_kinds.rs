//! Every kind of [`Op`], for the contracts that span it: the names other
//! code spells (the runtime's Python names an op by its variant, which
//! `_stagecheck_tensor.apply` turns into the serde tag) and the gradient
//! rules (`gradients/rules.py` must have one for each kind that is
//! [`Op::differentiable`]). Both are tested where the other side lives
//! (`executor/tests/op_names.rs`); here, that the list is whole.

use crate::dtype::DType;
use crate::op::Op;

/// The serde tag (`"op"` in JSON, the S-expression name) of the op whose
/// variant is named `variant`, as the runtime's Python names ops
/// (`ReduceSum` -> `reduce_sum`, `MatMul` -> `matmul`).
pub fn tag_of(variant: &str) -> String {
    if variant == "MatMul" {
        return "matmul".into();
    }
    let mut out = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

impl Op {
    /// The variant's name (`ReduceSum`): what the runtime's Python spells.
    pub fn variant(&self) -> String {
        let debug = format!("{self:?}");
        debug.split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or_default().to_string()
    }

    /// One op of each kind, attributes arbitrary, in [`Op::kind_index`] order.
    #[rustfmt::skip]
    pub fn one_of_each() -> Vec<Op> {
        use Op::*;
        let axis = || None;
        vec![
            Neg, Abs, Exp, Log, Sqrt, Tanh, Sigmoid, Relu, LogicalNot, Invert,
            Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Maximum, Minimum, Eq, Ne, Lt, Le, Gt, Ge, BitAnd, BitOr, BitXor,
            MatMul,
            ReduceSum { axis: axis(), keepdims: false },
            ReduceMax { axis: axis(), keepdims: false },
            ReduceMin { axis: axis(), keepdims: false },
            ReduceMean { axis: axis(), keepdims: false },
            ArgMax { axis: 0 },
            Where,
            Cast { dtype: DType::Float32 },
            Reshape { shape: vec![] },
            Transpose { perm: None },
            Concat { axis: 0 },
            Stack { axis: 0 },
            Index { items: vec![] },
            Gather,
            RangeCheck,
            Fill { shape: vec![], dtype: DType::Float32, value: 0.0 },
            Range { start: 0.0, limit: 1.0, delta: 1.0, dtype: DType::Int32 },
            Eye { n: 1, dtype: DType::Float32 },
            Identity,
            ListNew { shape: vec![], dtype: DType::Float32 },
            ListPush, ListLast, ListDrop, ListLen,
            ListStack { axis: 0 },
        ]
    }

    /// The kind's position in [`Op::one_of_each`]: a match over every
    /// variant, so a new one does not compile until it is numbered here,
    /// and the test below fails until it is listed there.
    #[rustfmt::skip]
    pub fn kind_index(&self) -> usize {
        use Op::*;
        match self {
            Neg => 0, Abs => 1, Exp => 2, Log => 3, Sqrt => 4, Tanh => 5, Sigmoid => 6, Relu => 7, LogicalNot => 8, Invert => 9,
            Add => 10, Sub => 11, Mul => 12, Div => 13, FloorDiv => 14, Mod => 15, Pow => 16, Maximum => 17, Minimum => 18,
            Eq => 19, Ne => 20, Lt => 21, Le => 22, Gt => 23, Ge => 24, BitAnd => 25, BitOr => 26, BitXor => 27,
            MatMul => 28,
            ReduceSum { .. } => 29, ReduceMax { .. } => 30, ReduceMin { .. } => 31, ReduceMean { .. } => 32, ArgMax { .. } => 33,
            Where => 34, Cast { .. } => 35, Reshape { .. } => 36, Transpose { .. } => 37, Concat { .. } => 38, Stack { .. } => 39,
            Index { .. } => 40, Gather => 41, RangeCheck => 42,
            Fill { .. } => 43, Range { .. } => 44, Eye { .. } => 45, Identity => 46,
            ListNew { .. } => 47, ListPush => 48, ListLast => 49, ListDrop => 50, ListLen => 51, ListStack { .. } => 52,
        }
    }

    /// Whether a gradient flows through the op, as TensorFlow registers
    /// one (`FloorDiv`'s is None, as there): its float results depend on
    /// its float inputs, or it moves values (reshape, index, gather,
    /// where, cast). Not comparisons, bitwise and logical ops, `ArgMax`,
    /// the generators and the list ops (a staged list's gradient goes
    /// through its pushes, `gradients/`).
    pub fn differentiable(&self) -> bool {
        use Op::*;
        match self {
            Neg | Abs | Exp | Log | Sqrt | Tanh | Sigmoid | Relu => true,
            Add | Sub | Mul | Div | FloorDiv | Mod | Pow | Maximum | Minimum | MatMul => true,
            ReduceSum { .. } | ReduceMax { .. } | ReduceMin { .. } | ReduceMean { .. } => true,
            Where | Cast { .. } | Reshape { .. } | Transpose { .. } | Concat { .. } | Stack { .. } | Index { .. } | Gather | Identity => {
                true
            }
            LogicalNot | Invert | Eq | Ne | Lt | Le | Gt | Ge | BitAnd | BitOr | BitXor | ArgMax { .. } | RangeCheck => false,
            Fill { .. } | Range { .. } | Eye { .. } => false,
            ListNew { .. } | ListPush | ListLast | ListDrop | ListLen | ListStack { .. } => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once_in_order() {
        let all = Op::one_of_each();
        for (i, op) in all.iter().enumerate() {
            assert_eq!(op.kind_index(), i, "{} is listed at {i}", op.name());
        }
    }

    /// The snake_case name written in S-expressions is the serde tag (the
    /// `"op"` of the JSON the runtime's `apply` builds), and [`tag_of`]
    /// gives it from the variant's name.
    #[test]
    fn the_sexpr_name_is_the_serde_tag_and_tag_of_the_variant() {
        for op in Op::one_of_each() {
            let json = serde_json::to_value(&op).expect("serialises");
            assert_eq!(json["op"], op.sexpr_name(), "{op:?}");
            assert_eq!(tag_of(&op.variant()), op.sexpr_name(), "{op:?}");
        }
    }
}
