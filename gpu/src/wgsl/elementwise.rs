//! Elementwise kernels: the element rule of each op × dtype (a WGSL
//! expression over the inputs' values `a`, `b`, `c` and words `wa`, `wb`,
//! `wc`), and the template that maps it over NumPy-broadcast inputs.

use super::{bindings, entry_1d, load, store, walk, Kernel, HELPERS};
use graph::{DType, Op};

/// How an input is read at output element `i`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Access {
    /// Same shape as the output: element `i`.
    Full,
    /// One element (a scalar, or all dims broadcast): element 0.
    Single,
    /// Broadcast with strides (0 on broadcast dims) at `info[2 + rank * (1 + k)..]`.
    Strided,
}

/// An element rule: the stored word of the output, and the condition under
/// which the op fails on this element (int division by zero, negative int power).
pub(crate) struct Rule {
    pub word: String,
    pub fails: Option<&'static str>,
}

fn value(dtype: DType, v: &str) -> Rule {
    Rule { word: store(dtype, v), fails: None }
}

fn word(w: &str) -> Rule {
    Rule { word: w.to_string(), fails: None }
}

/// The rule of `op` on inputs of dtype `d` (and, for `Cast`, to `to`);
/// `None` when this op × dtype has no GPU kernel.
pub(crate) fn rule(op: &Op, d: DType) -> Option<Rule> {
    use DType::{Bool, Float32 as F, Int32 as I};
    use Op::*;
    let ordered = "!is_nan_w(wa) && !is_nan_w(wb)";
    Some(match (op, d) {
        (Neg, F | I) => value(d, "-a"),
        (Abs, F | I) => value(d, "abs(a)"),
        (Relu, F) => word("select(0u, wa, is_nan_w(wa) || a > 0.0)"),
        (Relu, I) => value(d, "max(a, 0)"),
        // Planted: exp scaled by 1 + 2^-10, far beyond WGSL's 3 + 2|x| ULP.
        (Exp, F) if crate::planted::active("gpu_exp_inexact") => value(d, "exp(a) * 1.0009765625"),
        (Exp, F) => value(d, "exp(a)"),
        (Log, F) => value(d, "log_f32(a)"),
        (Sqrt, F) => value(d, "sqrt_f32(a)"),
        (Tanh, F) => value(d, "tanh_f32(a)"),
        (Sigmoid, F) => value(d, "div_f32(1.0, 1.0 + exp(-a))"),
        (LogicalNot, Bool) => value(d, "!a"),
        (Invert, I) => value(d, "~a"),
        (Add, F | I) => value(d, "a + b"),
        (Sub, F | I) => value(d, "a - b"),
        (Mul, F | I) => value(d, "a * b"),
        (Div, F) => value(d, "div_f32(a, b)"),
        (FloorDiv, F) => value(d, "floor(div_f32(a, b))"),
        // Planted: an int32 floor division one too high.
        (FloorDiv, I) if crate::planted::active("gpu_floordiv_off_by_one") => {
            Rule { word: store(d, "floordiv_i32(a, b) + 1"), fails: Some("b == 0") }
        }
        (FloorDiv, I) => Rule { word: store(d, "floordiv_i32(a, b)"), fails: Some("b == 0") },
        (Mod, F) => value(d, "floormod_f32(a, b)"),
        (Mod, I) => Rule { word: store(d, "mod_i32(a, b)"), fails: Some("b == 0") },
        (Pow, F) => value(d, "pow_f32(a, b)"),
        (Pow, I) => Rule { word: store(d, "pow_i32(a, b)"), fails: Some("b < 0") },
        (Maximum, F) => word("max_f32(wa, wb)"),
        (Maximum, I) => word("max_i32(wa, wb)"),
        (Minimum, F) => word("min_f32(wa, wb)"),
        (Minimum, I) => word("min_i32(wa, wb)"),
        (Eq, F) => value(Bool, &format!("{ordered} && a == b")),
        (Ne, F) => value(Bool, &format!("!({ordered} && a == b)")),
        (Lt, F) => value(Bool, &format!("{ordered} && a < b")),
        (Le, F) => value(Bool, &format!("{ordered} && a <= b")),
        (Gt, F) => value(Bool, &format!("{ordered} && a > b")),
        (Ge, F) => value(Bool, &format!("{ordered} && a >= b")),
        (Eq, I | Bool) => value(Bool, "a == b"),
        (Ne, I | Bool) => value(Bool, "a != b"),
        (Lt, I) => value(Bool, "a < b"),
        (Le, I) => value(Bool, "a <= b"),
        (Gt, I) => value(Bool, "a > b"),
        (Ge, I) => value(Bool, "a >= b"),
        (BitAnd, I | Bool) => value(d, "a & b"),
        (BitOr, I | Bool) => value(d, "a | b"),
        (BitXor, I) => value(d, "a ^ b"),
        (BitXor, Bool) => value(d, "a != b"),
        // Words of any 32-bit dtype: `c`'s words are chosen, not computed.
        (Where, _) => word("select(wc, wb, a)"),
        (Cast { dtype: to }, _) => return cast(d, *to),
        _ => return None,
    })
}

/// `Cast` between the 32-bit dtypes, with Rust's `as` rules (helpers.wgsl).
fn cast(from: DType, to: DType) -> Option<Rule> {
    use DType::{Bool, Float32 as F, Int32 as I};
    Some(match (from, to) {
        (_, _) if from == to => word("wa"),
        (Bool, I) => value(I, "select(0, 1, a)"),
        (Bool, F) => value(F, "select(0.0, 1.0, a)"),
        (I, Bool) => value(Bool, "a != 0"),
        (F, Bool) => value(Bool, "(wa & 0x7fffffffu) != 0u"),
        (I, F) => value(F, "i2f(a)"),
        (F, I) => value(I, "f2i(wa)"),
        _ => return None,
    })
}

/// The kernel applying `rule` to inputs of `dtypes` read as `access`. The
/// output's rank and shape are at `info[1..]`, each strided input's strides
/// after them. With a failure condition, binding `out + 1` is a flag the
/// failing elements set.
pub(crate) fn map_kernel(rule: &Rule, dtypes: &[DType], access: &[Access]) -> Kernel {
    let names = ["in0", "in1", "in2"];
    let (values, words) = (["a", "b", "c"], ["wa", "wb", "wc"]);
    let mut outputs = vec!["out: array<u32>"];
    if rule.fails.is_some() {
        outputs.push("flag: array<atomic<u32>>");
    }
    let mut body = String::from("let rank = info[1];\n");
    let strided: Vec<(&str, String)> = (0..dtypes.len())
        .filter(|&k| access[k] == Access::Strided)
        .map(|k| (["o0", "o1", "o2"][k], format!("2u + rank * {}u", k + 1)))
        .collect();
    for (name, _) in &strided {
        body += &format!("var {name} = 0;\n");
    }
    if !strided.is_empty() {
        body += &walk("i", "rank", "2u", &strided);
    }
    for (k, &d) in dtypes.iter().enumerate() {
        let at = match access[k] {
            Access::Full => "i".to_string(),
            Access::Single => "0u".to_string(),
            Access::Strided => format!("u32(o{k})"),
        };
        body += &format!("let {w} = {}[{at}];\nlet {v} = {};\n", names[k], load(d, words[k]), w = words[k], v = values[k]);
    }
    if let Some(fails) = rule.fails {
        body += &format!("if ({fails}) {{ atomicOr(&flag[0], 1u); }}\n");
    }
    body += &format!("out[i] = {};\n", rule.word);
    Kernel { source: format!("{}{HELPERS}\n{}", bindings(&names[..dtypes.len()], &outputs), entry_1d(&body)) }
}

/// Generators: `body` writes `out` from `i` and the constants at `info[2..]`.
pub(crate) fn generate_kernel(body: &str) -> Kernel {
    Kernel { source: format!("{}{HELPERS}\n{}", bindings(&[], &["out: array<u32>"]), entry_1d(body)) }
}
