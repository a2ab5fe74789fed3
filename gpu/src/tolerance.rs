//! How far a float32 result computed on the GPU may lie from graph's CPU
//! kernel, per op, from the accuracy table of the WGSL spec ("Floating
//! Point Accuracy", f32): `+ - *` are correctly rounded, `/` is within 2.5
//! ULP, `exp`/`log`/`pow` are approximations. Ops whose kernels use only
//! correctly rounded operations in the CPU's order are exact. NaN equals NaN
//! whatever its payload (GPUs canonicalise NaNs). Ints and bools: exact.

use graph::{Data, Op, Tensor};

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
            || (gpu - cpu).abs() <= self.abs + self.rel * cpu.abs()
                && !self.is_exact()
                && gpu.is_finite() == cpu.is_finite()
    }

    /// [`accepts`](Self::accepts) for two numbers that may be float32
    /// widened (a Python float read from a float32 tensor, a printed one):
    /// ULPs counted in float32 when both are float32 values, else in float64.
    pub fn accepts_widened(&self, got: f64, want: f64) -> bool {
        let (g, w) = (got as f32, want as f32);
        let ulps = if f64::from(g) == got && f64::from(w) == want { ulps32(g, w) } else { ulps64(got, want) };
        self.accepts(got, want, ulps)
    }

    /// `Ok` when `gpu` matches `cpu`: same dtype and shape, ints and bools
    /// equal, floats accepted element by element; else what differs first.
    pub fn check(&self, gpu: &Tensor, cpu: &Tensor) -> Result<(), String> {
        if gpu.dtype() != cpu.dtype() || gpu.shape() != cpu.shape() {
            return Err(format!("GPU gave {} {:?}, CPU {} {:?}", gpu.dtype(), gpu.shape(), cpu.dtype(), cpu.shape()));
        }
        let pairs: Vec<(f64, f64, u64)> = match (gpu.data(), cpu.data()) {
            (Data::F32(g), Data::F32(c)) => g.iter().zip(c).map(|(&g, &c)| (g as f64, c as f64, ulps32(g, c))).collect(),
            (Data::F64(g), Data::F64(c)) => g.iter().zip(c).map(|(&g, &c)| (g, c, ulps64(g, c))).collect(),
            _ if gpu.bit_eq(cpu) => return Ok(()),
            (Data::I32(g), Data::I32(c)) => return Err(first_difference(g.iter(), c.iter())),
            (Data::I64(g), Data::I64(c)) => return Err(first_difference(g.iter(), c.iter())),
            (Data::Bool(g), Data::Bool(c)) => return Err(first_difference(g.iter(), c.iter())),
            _ => return Err(format!("GPU {gpu:?} differs from CPU {cpu:?}")),
        };
        match pairs.iter().enumerate().find(|(_, &(g, c, u))| !self.accepts(g, c, u)) {
            Some((i, &(g, c, u))) => Err(format!("element {i}: GPU {g:e}, CPU {c:e} ({u} ULP apart; tolerance {self:?})")),
            None => Ok(()),
        }
    }
}

/// The first differing element of two exact (int or bool) results.
fn first_difference<T: PartialEq + std::fmt::Display>(
    gpu: impl Iterator<Item = T>,
    cpu: impl Iterator<Item = T>,
) -> String {
    match gpu.zip(cpu).enumerate().find(|(_, (g, c))| g != c) {
        Some((i, (g, c))) => format!("element {i}: GPU {g}, CPU {c} (exact op)"),
        None => "the results differ".into(),
    }
}

/// Representable values between `a` and `b` (±0 are one value).
fn ulps32(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let bits = x.to_bits() as i64;
        if bits & 0x8000_0000 != 0 { -(bits & 0x7fff_ffff) } else { bits }
    };
    (key(a) - key(b)).unsigned_abs()
}

fn ulps64(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let bits = x.to_bits() as i128;
        if bits & (1 << 63) != 0 { -(bits & 0x7fff_ffff_ffff_ffff) } else { bits }
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
        _ => Tolerance::EXACT,
    }
}
