//! How far a float32 result computed on the GPU may lie from graph's CPU
//! kernel on the same inputs, per op and dtype, from the WGSL spec
//! (§ "Floating Point Evaluation", https://www.w3.org/TR/WGSL/#floating-point-evaluation,
//! and its § "Floating Point Accuracy", #floating-point-accuracy, f32
//! column). Ints and bools: exact. NaN equals NaN whatever its payload (GPUs
//! canonicalise NaNs). Never wider than the op's own bound:
//!
//! - The accuracy table ([`tolerance`]): `+ - *`, `-x`, `abs`, `min`/`max`
//!   and comparisons are correctly rounded (or correct), `/` is within 2.5
//!   ULP, `exp`/`log`/`pow` are approximations. Ops whose kernels use only
//!   correctly rounded operations in the CPU's order are exact.
//! - Subnormals (§ "Floating Point Evaluation", "flush to zero"): "Any
//!   inputs or outputs of operations listed in [Floating Point Accuracy] may
//!   be flushed to zero", i.e. a subnormal f32 replaced by a zero (lavapipe
//!   keeps them; NVIDIA's Vulkan driver flushes: `-(1.3e-39)` gave `-0`,
//!   `log` of a subnormal gave `-inf`). So where the plain comparison fails,
//!   [`check_op`] accepts an element that matches within the op's bound
//!   after flushing subnormals to same-signed zeros (on both sides: a reader
//!   that flushes cannot tell two subnormals apart): the GPU's result against
//!   the CPU kernel's result on the same inputs, or against the CPU kernel's
//!   result on the inputs with their subnormals flushed; a subnormal CPU
//!   result may come back as either zero (WGSL also lets an implementation
//!   ignore a zero's sign; elsewhere its sign counts). That is the only
//!   extra allowance: an exact op stays bit for bit otherwise. Sums (the
//!   fold of `ReduceSum`, `ReduceMean`) may also flush a subnormal partial
//!   sum, losing under 2^-126 per addition: the flushed comparison allows
//!   `count · 2^-126` there (the mean: that over `count`, plus its division).
//! - Contraction (§ "Reassociation and Fusion": "An implementation may fuse
//!   operations if the transformed expression is at least as accurate as the
//!   original formulation"): the matmul kernel adds its products over `k` in
//!   the CPU's order; the CPU fuses each multiply-add, the GPU's kernel does
//!   not, but its driver may contract `acc + a * b` into one (the H200 did;
//!   lavapipe does not: 1 to 4 ULP apart), so float32 `MatMul` is not bit
//!   for bit. Its bound is the standard one of a dot product of
//!   length `k` (Higham, Accuracy and Stability of Numerical Algorithms,
//!   §3.1): computed in float32 in any order, with or without fusion, the
//!   result lies within `γ_k · Σ|a_i·b_i|` of the exact value, `γ_k = k·u /
//!   (1 − k·u)`, `u = 2^-24`. Both the GPU and the CPU do, so [`check_op`]
//!   accepts `|g − c| ≤ 2·γ_k·Σ|a_i·b_i|` per output element, the sum
//!   computed from the inputs in float64 (exact products), plus the flushes
//!   WGSL allows: each of the 2k operations may lose under 2^-126 more, so
//!   `k · 2^-123` in all (negligible unless the values are). NaN and
//!   infinities as elsewhere: NaN only against NaN, an infinity only against
//!   the same one; except where the finite products' magnitudes reach
//!   f32::MAX (Σ|a_i·b_i|·(1 + γ_k) ≥ MAX): then a partial sum may overflow
//!   in one evaluation and not the other (a fused `-MAX + MAX·2` is `MAX`,
//!   the rounded one `+inf`), and a non-finite result on either side is
//!   accepted (two finite ones are still held to the bound). The reduction
//!   kernels have no products to fuse, and fold in the CPU's order: they stay
//!   exact (subnormals aside). WGSL also lets an implementation reassociate;
//!   no driver has been seen to reorder the fold's loop-carried sum.
//!
//! [`Tolerance`] is the table's form (ULPs, absolute, relative), which the
//! oracle also applies to a run's final values ([`tolerance_for`]: for a
//! float32 matmul, `rel = 2·γ_k`, its bound where the products do not cancel).

use graph::{DType, Data, Op, Tensor};

/// A float result `g` is accepted against the CPU's `c` when both are NaN,
/// or they are `ulps` or fewer representable values apart, or
/// `|g - c| <= abs + rel * |c|`. [`Tolerance::EXACT`]: same bits (NaN aside).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tolerance {
    pub ulps: u32,
    pub abs: f64,
    pub rel: f64,
}

impl Tolerance {
    pub const EXACT: Tolerance = Tolerance { ulps: 0, abs: 0.0, rel: 0.0 };

    pub fn is_exact(&self) -> bool {
        *self == Tolerance::EXACT
    }

    /// The looser of two tolerances, bound by bound.
    pub fn loosest(self, other: Tolerance) -> Tolerance {
        Tolerance { ulps: self.ulps.max(other.ulps), abs: self.abs.max(other.abs), rel: self.rel.max(other.rel) }
    }

    /// Every bound times `k` (errors of `k` chained ops add, to first order).
    pub fn times(self, k: u32) -> Tolerance {
        Tolerance { ulps: self.ulps.saturating_mul(k), abs: self.abs * f64::from(k), rel: self.rel * f64::from(k) }
    }

    /// Whether `gpu` is acceptable for `cpu`.
    pub fn accepts(&self, gpu: f64, cpu: f64, ulp_distance: u64) -> bool {
        (gpu.is_nan() && cpu.is_nan())
            || (self.is_exact() && ulp_distance == 0 && gpu.to_bits() == cpu.to_bits())
            || (!self.is_exact() && ulp_distance <= u64::from(self.ulps))
            || (gpu - cpu).abs() <= self.abs + self.rel * cpu.abs() && !self.is_exact() && gpu.is_finite() == cpu.is_finite()
    }

    /// [`accepts`](Self::accepts) for two numbers that may be float32
    /// widened (a Python float read from a float32 tensor, a printed one):
    /// ULPs counted in float32 when both are float32 values, else in float64.
    pub fn accepts_widened(&self, got: f64, want: f64) -> bool {
        let (g, w) = (got as f32, want as f32);
        let ulps = if f64::from(g) == got && f64::from(w) == want { ulps32(g, w) } else { ulps64(got, want) };
        self.accepts(got, want, ulps)
    }
}

/// Representable values between `a` and `b` (±0 are one value).
fn ulps32(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let bits = x.to_bits() as i64;
        if bits & 0x8000_0000 != 0 {
            -(bits & 0x7fff_ffff)
        } else {
            bits
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

fn ulps64(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let bits = x.to_bits() as i128;
        if bits & (1 << 63) != 0 {
            -(bits & 0x7fff_ffff_ffff_ffff)
        } else {
            bits
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u64::MAX as u128) as u64
}

/// The smallest normal float32, 2^-126: the absolute error of a subnormal result flushed to zero.
const FLT_MIN: f64 = 1.1754943508222875e-38;

/// The documented tolerance of `op` on the GPU against the CPU kernel.
pub fn tolerance(op: &Op) -> Tolerance {
    use Op::*;
    let t = |ulps: u32, abs: f64, rel: f64| Tolerance { ulps, abs, rel };
    match op {
        // x / y: 2.5 ULP (WGSL, |y| in [2^-126, 2^126]).
        Div => t(3, 0.0, 0.0),
        // floor(x / y): the quotient within 2.5 ULP, so the floor may be 1 off
        // where x / y lies within 2.5 ULP of an integer.
        FloorDiv => t(3, 1.0, 0.0),
        // The sum is the CPU's (same order); the division by the count is within 2.5 ULP.
        ReduceMean { .. } => t(3, 0.0, 0.0),
        // exp: 3 + 2·|x| ULP; results are finite and nonzero only for |x| < 104.
        // Subnormal results (below 2^-126) may be flushed to zero (lavapipe does).
        Exp => t(3 + 2 * 104, FLT_MIN, 0.0),
        // log: 3 ULP outside [0.5, 2], absolute error below 2^-21 inside.
        Log => t(3, 2f64.powi(-21), 0.0),
        // sqrt: inherited from 1 / inverseSqrt(x): 2 ULP, then a division, 2.5 ULP.
        Sqrt => t(6, 0.0, 0.0),
        // (1 - e^-2|x|) / (1 + e^-2|x|) (WGSL's tanh, from sinh / cosh, overflows):
        // exp's error on e^-2|x| near 1 and the subtraction give an absolute
        // error near 2^-23, then a division (2.5 ULP).
        Tanh => t(4, 2f64.powi(-21), 0.0),
        // 1 / (1 + exp(-x)): exp's 3 + 2·|x| ULP (|x| < 104) carried into the
        // quotient for negative x, plus the division's 2.5 ULP.
        // Subnormal results may be flushed to zero, as exp's.
        Sigmoid => t(3 + 2 * 104 + 3, FLT_MIN, 0.0),
        // pow(x, y) for x > 0 is inherited from exp2(y · log2(x)): log2's
        // error (3 ULP, or 2^-21 absolute near 1) scaled by |y|, then exp2's
        // 3 + 2·|z| ULP. Not bounded by the op alone; this bound holds for
        // |y · log2(x)| <= 64 and |y| <= 64 (the fuzzer's values), measured
        // with margin on lavapipe. Special cases (signs, zeros, infinities)
        // are written out and exact.
        Pow => t(3 + 2 * 64, FLT_MIN, 2f64.powi(-12)),
        // MatMul: exact in this form; a float32 one may fuse (module doc):
        // `check_op` holds it to its dot product bound, `tolerance_for` gives its form.
        _ => Tolerance::EXACT,
    }
}

/// `u`, the unit roundoff of float32 (round to nearest): 2^-24.
const UNIT_ROUNDOFF: f64 = 1.0 / 16_777_216.0;

/// `γ_k = k·u / (1 − k·u)`; infinite (no bound) once `k·u ≥ 1/2`.
fn gamma(k: usize) -> f64 {
    let ku = k as f64 * UNIT_ROUNDOFF;
    if ku >= 0.5 {
        f64::INFINITY
    } else {
        ku / (1.0 - ku)
    }
}

/// How far two float32 dot products of length `k` whose products' magnitudes
/// add up to `sum_abs` may lie apart: each within `γ_k · sum_abs` of the
/// exact value, plus under 2^-126 per flushed operation (2k of them, each
/// carried through at most a factor `1 + γ_k ≤ 2`).
pub fn dot_bound(k: usize, sum_abs: f64) -> f64 {
    2.0 * (gamma(k) * sum_abs + k as f64 * 2f64.powi(-124))
}

/// The tolerance a run records for `op` on inputs of these dtypes and
/// shapes (the oracle compares the run's final floats within the loosest,
/// times a chain length): [`tolerance`], but for a float32 matmul its dot
/// product bound relative to the result, `2·γ_k`, which holds where the
/// products do not cancel.
pub fn tolerance_for(op: &Op, inputs: &[(DType, &[usize])]) -> Tolerance {
    match (op, inputs) {
        (Op::MatMul, [(DType::Float32, a), _]) if !a.is_empty() => Tolerance { ulps: 0, abs: 0.0, rel: 2.0 * gamma(a[a.len() - 1]) },
        _ => tolerance(op),
    }
}

/// One element of a result as the comparison sees it.
#[derive(Clone, Copy, Debug)]
enum Elem {
    F32(f32),
    F64(f64),
    /// Ints and bools.
    Exact(i64),
}

impl Elem {
    /// A float32 subnormal as the same-signed zero.
    fn flushed(self) -> Elem {
        match self {
            Elem::F32(v) => Elem::F32(flush(v)),
            e => e,
        }
    }
}

impl std::fmt::Display for Elem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Elem::F32(v) => write!(f, "{:e}", f64::from(*v)),
            Elem::F64(v) => write!(f, "{v:e}"),
            Elem::Exact(v) => write!(f, "{v}"),
        }
    }
}

fn flush(v: f32) -> f32 {
    if v.is_subnormal() {
        f32::from_bits(v.to_bits() & 0x8000_0000)
    } else {
        v
    }
}

fn elems(t: &Tensor) -> Vec<Elem> {
    match t.data() {
        Data::F32(a) => a.iter().map(|&v| Elem::F32(v)).collect(),
        Data::F64(a) => a.iter().map(|&v| Elem::F64(v)).collect(),
        Data::I32(a) => a.iter().map(|&v| Elem::Exact(v.into())).collect(),
        Data::I64(a) => a.iter().map(|&v| Elem::Exact(v)).collect(),
        Data::Bool(a) => a.iter().map(|&v| Elem::Exact(v.into())).collect(),
    }
}

/// Whether a float32 input holds a subnormal.
fn has_subnormal(t: &Tensor) -> bool {
    matches!(t.data(), Data::F32(a) if a.iter().any(|v| v.is_subnormal()))
}

/// `t` with its float32 subnormals flushed to same-signed zeros.
fn flushed(t: &Tensor) -> Tensor {
    match t.data() {
        Data::F32(a) => Tensor::new(Data::F32(a.mapv(flush))),
        _ => t.clone(),
    }
}

/// How one result's elements are judged.
enum Rule {
    /// The accuracy table; `flushed` is the looser form for comparisons of
    /// flushed values (a fold's flushed partial sums).
    Table { table: Tolerance, flushed: Tolerance },
    /// A float32 matmul: per output element, `Σ|a·b|` over the finite products.
    Dot { k: usize, sums: Vec<f64> },
}

impl Rule {
    fn new(op: &Op, inputs: &[&Tensor], out: &Tensor) -> Rule {
        let table = tolerance(op);
        let count = if out.is_empty() { 0 } else { inputs.first().map_or(0, |t| t.len() / out.len()) };
        let fold = count.saturating_sub(1) as f64 * FLT_MIN;
        match (op, inputs) {
            (Op::MatMul, [a, b]) if out.dtype() == DType::Float32 => match dot_sums(a, b) {
                Some((k, sums)) if sums.len() == out.len() => Rule::Dot { k, sums },
                _ => Rule::Table { table, flushed: table },
            },
            // The fold's count - 1 additions may each flush a partial sum.
            (Op::ReduceSum { .. }, _) if out.dtype() == DType::Float32 && fold > 0.0 => {
                Rule::Table { table, flushed: Tolerance { abs: fold, ..table } }
            }
            // That error over `count` is under 2^-126; with the division's
            // 2.5 ULP, 4 ULP where ULPs are 2^-126 or more, else 4 · 2^-126.
            (Op::ReduceMean { .. }, _) if out.dtype() == DType::Float32 && fold > 0.0 => {
                Rule::Table { table, flushed: Tolerance { ulps: 4, abs: 4.0 * FLT_MIN, rel: 0.0 } }
            }
            _ => Rule::Table { table, flushed: table },
        }
    }

    /// Whether `g` is acceptable for `c` at element `i`.
    fn accepts(&self, i: usize, g: Elem, c: Elem, flushed: bool) -> bool {
        match (self, g, c) {
            (_, Elem::Exact(g), Elem::Exact(c)) => g == c,
            (Rule::Dot { k, sums }, Elem::F32(g), Elem::F32(c)) => dot_accepts(g, c, *k, sums[i]),
            (Rule::Table { table, flushed: loose }, Elem::F32(g), Elem::F32(c)) => {
                (if flushed { loose } else { table }).accepts(g.into(), c.into(), ulps32(g, c))
            }
            (Rule::Table { table, .. }, Elem::F64(g), Elem::F64(c)) => table.accepts(g, c, ulps64(g, c)),
            _ => false,
        }
    }

    fn describe(&self, i: usize, g: Elem, c: Elem) -> String {
        let apart = match (g, c) {
            (Elem::F32(g), Elem::F32(c)) => format!("{} ULP apart; ", ulps32(g, c)),
            (Elem::F64(g), Elem::F64(c)) => format!("{} ULP apart; ", ulps64(g, c)),
            _ => String::new(),
        };
        match self {
            Rule::Dot { k, sums } => {
                format!("element {i}: GPU {g}, CPU {c} ({apart}float32 dot product bound {:e} for k = {k})", dot_bound(*k, sums[i]))
            }
            Rule::Table { table, .. } => format!("element {i}: GPU {g}, CPU {c} ({apart}tolerance {table:?})"),
        }
    }
}

/// `Σ_p |a[.., i, p] · b[.., p, j]|` per output element of `a @ b`, in
/// float64 over the finite products (exact: 24-bit significands), and `k`.
fn dot_sums(a: &Tensor, b: &Tensor) -> Option<(usize, Vec<f64>)> {
    let (Data::F32(av), Data::F32(bv)) = (a.data(), b.data()) else { return None };
    let (sa, sb) = (a.shape(), b.shape());
    let r = sa.len();
    if r < 2 || sb.len() != r || sa[..r - 2] != sb[..r - 2] || sa[r - 1] != sb[r - 2] {
        return None;
    }
    let (m, k, n) = (sa[r - 2], sa[r - 1], sb[r - 1]);
    let batches: usize = sa[..r - 2].iter().product();
    let av: Vec<f64> = av.iter().map(|&v| f64::from(v)).collect();
    let bv: Vec<f64> = bv.iter().map(|&v| f64::from(v)).collect();
    let mut sums = Vec::with_capacity(batches * m * n);
    for batch in 0..batches {
        let (am, bm) = (&av[batch * m * k..(batch + 1) * m * k], &bv[batch * k * n..(batch + 1) * k * n]);
        for i in 0..m {
            for j in 0..n {
                sums.push((0..k).map(|p| (am[i * k + p] * bm[p * n + j]).abs()).filter(|x| x.is_finite()).sum());
            }
        }
    }
    Some((k, sums))
}

/// A float32 dot product's GPU result `g` against the CPU's `c` (see the module doc).
fn dot_accepts(g: f32, c: f32, k: usize, sum_abs: f64) -> bool {
    if g.is_finite() && c.is_finite() {
        return (f64::from(g) - f64::from(c)).abs() <= dot_bound(k, sum_abs);
    }
    (g.is_nan() && c.is_nan()) || g == c || sum_abs * (1.0 + gamma(k)) >= f64::from(f32::MAX)
}

/// `Ok` when `gpu`, the GPU's result of `op` on `inputs`, is acceptable
/// against `cpu`, graph's CPU kernel on the same inputs: same dtype and
/// shape, ints and bools equal, floats within the op's bound (the table, or
/// a float32 matmul's dot product bound), subnormals possibly flushed (see
/// the module doc); else the first element beyond, with both values.
/// `Ok(Some(note))` when the result was accepted only because the GPU
/// flushed subnormals (the note names the first such element): what
/// follows in the program may then part ways with the CPU's run as the
/// platform allows (a branch on `x > 0` for a subnormal `x`).
pub fn check_op(op: &Op, inputs: &[&Tensor], gpu: &Tensor, cpu: &Tensor) -> Result<Option<String>, String> {
    if gpu.dtype() != cpu.dtype() || gpu.shape() != cpu.shape() {
        return Err(format!("GPU gave {} {:?}, CPU {} {:?}", gpu.dtype(), gpu.shape(), cpu.dtype(), cpu.shape()));
    }
    let rule = Rule::new(op, inputs, cpu);
    let (g, c) = (elems(gpu), elems(cpu));
    let beyond: Vec<usize> = (0..g.len()).filter(|&i| !rule.accepts(i, g[i], c[i], false)).collect();
    if beyond.is_empty() {
        return Ok(None);
    }
    // Flush to zero: the CPU kernel on the inputs with subnormals flushed.
    let on_flushed = if inputs.iter().any(|t| has_subnormal(t)) {
        let inputs: Vec<Tensor> = inputs.iter().map(|t| flushed(t)).collect();
        let refs: Vec<&Tensor> = inputs.iter().collect();
        graph::eval(op, &refs)
            .ok()
            .filter(|c2| c2.dtype() == cpu.dtype() && c2.shape() == cpu.shape())
            .map(|c2| (Rule::new(op, &refs, &c2), elems(&c2)))
    } else {
        None
    };
    // A subnormal CPU result may come back as either zero.
    let zero_for = |g: Elem, c: Elem| matches!((g, c), (Elem::F32(g), Elem::F32(c)) if g == 0.0 && c.is_subnormal());
    let accepted = |i: usize| {
        let g = g[i].flushed();
        let matches = |r: &Rule, c: Elem| zero_for(g, c) || r.accepts(i, g, c.flushed(), true);
        matches(&rule, c[i]) || on_flushed.as_ref().is_some_and(|(r, c2)| matches(r, c2[i]))
    };
    match beyond.iter().copied().find(|&i| !accepted(i)) {
        None => Ok(Some(format!("element {}: GPU {}, CPU {} (subnormals flushed)", beyond[0], g[beyond[0]], c[beyond[0]]))),
        Some(i) => {
            let mut e = rule.describe(i, g[i], c[i]);
            if let Some((_, c2)) = &on_flushed {
                e += &format!("; on the inputs with subnormals flushed to zero the CPU gives {}", c2[i]);
            }
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32], shape: &[usize]) -> Tensor {
        Tensor::from_f32(v.to_vec(), shape).unwrap()
    }

    /// `op`'s CPU result on `inputs`, and `check_op` of `gpu` against it.
    fn check(op: &Op, inputs: &[Tensor], gpu: &Tensor) -> Result<(), String> {
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let cpu = graph::eval(op, &refs).unwrap();
        check_op(op, &refs, gpu, &cpu).map(|_| ())
    }

    const SUB: f32 = 1.312937e-39;

    #[test]
    fn an_acceptance_that_needed_a_flush_says_so() {
        let x = f32s(&[SUB, 2.0], &[2]);
        let cpu = graph::eval(&Op::Neg, &[&x]).unwrap();
        assert_eq!(check_op(&Op::Neg, &[&x], &cpu, &cpu), Ok(None), "the CPU's own result needs no allowance");
        let note = check_op(&Op::Neg, &[&x], &f32s(&[-0.0, -2.0], &[2]), &cpu).unwrap();
        assert!(note.is_some_and(|n| n.starts_with("element 0:")), "a flushed element is named");
    }

    #[test]
    fn a_flushed_subnormal_input_or_output_is_accepted_nothing_else() {
        assert!(SUB.is_subnormal());
        let x = [f32s(&[SUB, 2.0, -SUB], &[3])];
        // -x: the H200 gave -0 for -(1.3e-39); the same-signed zero only.
        check(&Op::Neg, &x, &f32s(&[-SUB, -2.0, SUB], &[3])).unwrap();
        check(&Op::Neg, &x, &f32s(&[-0.0, -2.0, 0.0], &[3])).unwrap();
        // A subnormal result may come back as either zero.
        check(&Op::Neg, &x, &f32s(&[0.0, -2.0, -0.0], &[3])).unwrap();
        // Subnormals equal once flushed are equal to a reader that flushes
        // (max_f32 compares flushed values and returns an input's bits).
        check(&Op::Neg, &x, &f32s(&[-2.0 * SUB, -2.0, 0.0], &[3])).unwrap();
        for bad in [f32::NAN, -1e-30, -f32::MIN_POSITIVE, 1.0] {
            let e = check(&Op::Neg, &x, &f32s(&[bad, -2.0, 0.0], &[3])).unwrap_err();
            assert!(e.starts_with("element 0: GPU ") && e.contains("CPU -1.3129") && e.contains("flushed"), "{e}");
        }
        // Without a subnormal, a zero keeps its sign.
        let zeros = [f32s(&[0.0, -0.0], &[2])];
        check(&Op::Neg, &zeros, &f32s(&[-0.0, 0.0], &[2])).unwrap();
        let e = check(&Op::Neg, &zeros, &f32s(&[0.0, 0.0], &[2])).unwrap_err();
        assert!(e.starts_with("element 0: GPU 0e0, CPU -0e0"), "{e}");
        // The flush is no allowance elsewhere: an exact op off by one ULP.
        let e = check(&Op::Neg, &x, &f32s(&[-0.0, -2.0000002, 0.0], &[3])).unwrap_err();
        assert!(e.contains("element 1: GPU -2.0000002") && e.contains("CPU -2e0"), "{e}");
    }

    #[test]
    fn log_of_a_flushed_subnormal_is_minus_infinity() {
        let x = [f32s(&[1.0, SUB], &[2])];
        check(&Op::Log, &x, &f32s(&[0.0, SUB.ln()], &[2])).unwrap();
        check(&Op::Log, &x, &f32s(&[0.0, f32::NEG_INFINITY], &[2])).unwrap();
        for bad in [f32::NAN, f32::INFINITY, -88.0, 0.0] {
            let e = check(&Op::Log, &x, &f32s(&[0.0, bad], &[2])).unwrap_err();
            assert!(e.contains("element 1: GPU") && e.contains("CPU -8.95"), "{bad}: {e}");
        }
        // Without a subnormal input, -inf stays wrong.
        assert!(check(&Op::Log, &[f32s(&[1e-30], &[1])], &f32s(&[f32::NEG_INFINITY], &[1])).is_err());
    }

    #[test]
    fn comparisons_and_extremes_may_read_subnormals_as_zeros() {
        let (a, b) = (f32s(&[SUB, 1.0], &[2]), f32s(&[2.0 * SUB, 2.0], &[2]));
        let lt = |v: Vec<bool>| Tensor::from_bool(v, &[2]).unwrap();
        check(&Op::Lt, &[a.clone(), b.clone()], &lt(vec![false, true])).unwrap();
        assert!(check(&Op::Lt, &[a.clone(), b.clone()], &lt(vec![true, false])).is_err());
        // max reads flushed values but returns an input's bits.
        let max = Op::ReduceMax { axis: None, keepdims: false };
        check(&max, &[f32s(&[SUB, 2.0 * SUB], &[2])], &Tensor::scalar_f32(SUB)).unwrap();
        assert!(check(&max, &[f32s(&[SUB, 1.0], &[2])], &Tensor::scalar_f32(SUB)).is_err());
    }

    #[test]
    fn a_sum_may_flush_a_subnormal_partial_sum() {
        // Normal inputs; the partial sum 5e-39 is subnormal: flushed, the sum is 2e-38.
        let x = [f32s(&[2e-38, -1.5e-38, 2e-38], &[3])];
        let sum = Op::ReduceSum { axis: None, keepdims: false };
        check(&sum, &x, &Tensor::scalar_f32(2e-38)).unwrap();
        assert!(check(&sum, &x, &Tensor::scalar_f32(1e-30)).is_err());
        assert!(check(&sum, &[f32s(&[1.0, 2.0, 3.0], &[3])], &Tensor::scalar_f32(6.0000005)).is_err(), "sums stay exact");
    }

    /// The float32 dot products of `a @ b`, in order, every multiply-add
    /// fused (one rounding each: the CPU kernel) or not (a product rounded,
    /// then the sum: the GPU kernel as written, before a driver fuses it).
    fn dots(a: &[f32], b: &[f32], (m, k, n): (usize, usize, usize), fuse: bool) -> Vec<f32> {
        let mut out = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                out[i * n + j] = (0..k).fold(0f32, |acc, p| {
                    let (x, y) = (a[i * k + p], b[p * n + j]);
                    if fuse {
                        x.mul_add(y, acc)
                    } else {
                        acc + x * y
                    }
                });
            }
        }
        out
    }

    #[test]
    fn matmul_within_its_dot_product_bound_and_not_beyond() {
        let (m, k, n) = (3, 16, 5);
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.0173).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 53 % 97) as f32 - 48.0) * 0.0291).collect();
        let inputs = [f32s(&a, &[m, k]), f32s(&b, &[k, n])];
        let cpu = graph::eval(&Op::MatMul, &[&inputs[0], &inputs[1]]).unwrap();
        let Data::F32(c) = cpu.data() else { unreachable!() };
        let c: Vec<f32> = c.iter().copied().collect();
        // The CPU fuses its multiply-adds; the GPU's unfused sums (what
        // lavapipe computes; the H200 fused them) differ here, and are accepted.
        assert_eq!(dots(&a, &b, (m, k, n), true), c, "the CPU kernel fuses");
        let unfused = dots(&a, &b, (m, k, n), false);
        assert_ne!(unfused, c, "the data should tell fused from unfused");
        check(&Op::MatMul, &inputs, &f32s(&unfused, &[m, n])).unwrap();
        assert!(!f32s(&unfused, &[m, n]).bit_eq(&cpu), "bit for bit would reject it");
        // Off by 0.9 and by 10 bounds in element 7.
        let sum_abs: f64 = (0..k).map(|p| (f64::from(a[7 / n * k + p]) * f64::from(b[p * n + 7 % n])).abs()).sum();
        let bound = dot_bound(k, sum_abs);
        let off = |by: f64| {
            let mut g = c.clone();
            g[7] = (f64::from(c[7]) + by * bound) as f32;
            f32s(&g, &[m, n])
        };
        check(&Op::MatMul, &inputs, &off(0.9)).unwrap();
        let e = check(&Op::MatMul, &inputs, &off(10.0)).unwrap_err();
        assert!(e.starts_with("element 7: GPU ") && e.contains(&format!("CPU {:e}", f64::from(c[7]))) && e.contains("k = 16"), "{e}");
        let mut nan = c.clone();
        nan[2] = f32::NAN;
        assert!(check(&Op::MatMul, &inputs, &f32s(&nan, &[m, n])).unwrap_err().starts_with("element 2: GPU NaN"));
        // int32 stays exact.
        let ints = [Tensor::from_i32(vec![1, 2], &[1, 2]).unwrap(), Tensor::from_i32(vec![3, 4], &[2, 1]).unwrap()];
        check(&Op::MatMul, &ints, &Tensor::from_i32(vec![11], &[1, 1]).unwrap()).unwrap();
        assert!(check(&Op::MatMul, &ints, &Tensor::from_i32(vec![12], &[1, 1]).unwrap()).is_err());
    }

    #[test]
    fn matmul_overflow_may_differ_only_where_the_products_reach_max() {
        // -MAX + MAX·2: rounded, the product overflows and the sum is +inf;
        // fused, the sum is MAX.
        let inputs = [f32s(&[f32::MAX, f32::MAX], &[1, 2]), f32s(&[-1.0, 2.0], &[2, 1])];
        assert_eq!(dots(&[f32::MAX, f32::MAX], &[-1.0, 2.0], (1, 2, 1), true), vec![f32::MAX]);
        check(&Op::MatMul, &inputs, &f32s(&[f32::MAX], &[1, 1])).unwrap();
        check(&Op::MatMul, &inputs, &f32s(&[f32::INFINITY], &[1, 1])).unwrap();
        // Far from overflow, an infinity is wrong.
        let small = [f32s(&[1.0, 2.0], &[1, 2]), f32s(&[3.0, 4.0], &[2, 1])];
        assert!(check(&Op::MatMul, &small, &f32s(&[f32::INFINITY], &[1, 1])).is_err());
        // NaN inputs give NaN on both sides; a number is wrong.
        let nan = [f32s(&[f32::NAN, 2.0], &[1, 2]), f32s(&[3.0, 4.0], &[2, 1])];
        check(&Op::MatMul, &nan, &f32s(&[f32::NAN], &[1, 1])).unwrap();
        assert!(check(&Op::MatMul, &nan, &f32s(&[8.0], &[1, 1])).is_err());
    }

    #[test]
    fn matmul_on_flushed_subnormal_inputs() {
        // 1e-39 · 1e38 = 0.1: flushed, the product is 0.
        let inputs = [f32s(&[1e-39, 1.0], &[1, 2]), f32s(&[1e38, 0.5], &[2, 1])];
        check(&Op::MatMul, &inputs, &f32s(&[0.5], &[1, 1])).unwrap();
        check(&Op::MatMul, &inputs, &f32s(&[0.6], &[1, 1])).unwrap();
        assert!(check(&Op::MatMul, &inputs, &f32s(&[0.55], &[1, 1])).is_err());
    }

    #[test]
    fn a_float32_matmul_records_its_relative_bound() {
        let t = tolerance_for(&Op::MatMul, &[(DType::Float32, &[4, 16]), (DType::Float32, &[16, 2])]);
        assert_eq!(t, Tolerance { ulps: 0, abs: 0.0, rel: 2.0 * gamma(16) });
        assert!(tolerance_for(&Op::MatMul, &[(DType::Int32, &[4, 16]), (DType::Int32, &[16, 2])]).is_exact());
        assert_eq!(tolerance_for(&Op::Exp, &[(DType::Float32, &[3])]), tolerance(&Op::Exp));
    }
}
