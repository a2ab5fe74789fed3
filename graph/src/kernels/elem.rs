//! Element traits: the per-element arithmetic every kernel is generic over,
//! written once for `i32`, `i64`, `f32`, `f64` (and `bool` where it applies).
//! Integer arithmetic wraps; callers check zero divisors and negative integer
//! exponents before mapping.

use crate::tensor::Data;
use ndarray::ArrayD;

/// Any element type: knows how to wrap an array of itself as `Data`.
pub(crate) trait Elem: Copy + PartialEq + PartialOrd + 'static {
    fn wrap(a: ArrayD<Self>) -> Data;
    /// NaN is the only value unordered with itself; false for ints and bools.
    #[allow(clippy::eq_op)]
    fn is_nan(self) -> bool {
        self != self
    }
}

/// Ints and floats.
pub(crate) trait Number: Elem + Send + Sync {
    const ZERO: Self;
    const IS_INT: bool;
    /// The dtype of true division (`float64` for ints, as TF's `truediv`).
    type Quotient: Elem;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// `self · o + acc`: floats round once (a fused multiply-add, the same
    /// bits with or without the instruction), ints wrap as `add(mul)`.
    fn mul_add(self, o: Self, acc: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    fn true_div(self, o: Self) -> Self::Quotient;
    /// Ints: `o != 0` (checked by the caller).
    fn floor_div(self, o: Self) -> Self;
    /// Ints: `o != 0` (checked by the caller).
    fn floor_mod(self, o: Self) -> Self;
    /// Ints: `o >= 0` (checked by the caller).
    fn pow(self, o: Self) -> Self;
    /// Mean: the sum divided by the element count (truncating for ints).
    fn div_count(self, count: usize) -> Self;
    fn is_zero(self) -> bool {
        self == Self::ZERO
    }
}

/// Floats: the transcendental ops.
pub(crate) trait Float: Number {
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sqrt(self) -> Self;
    fn tanh(self) -> Self;
    fn sigmoid(self) -> Self;
    /// `v[i] = v[i].tanh()`: a type may vectorise the loop (same bits).
    fn tanh_in_place(v: &mut [Self]) {
        for x in v {
            *x = x.tanh();
        }
    }
}

/// Bools and ints: `&`, `|`, `^`.
pub(crate) trait Bits: Elem {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
}

/// Ints: bitwise not.
pub(crate) trait Int: Number + Bits {
    fn not(self) -> Self;
}

/// NaN-propagating maximum (the first NaN wins).
pub(crate) fn maximum<T: Elem>(a: T, b: T) -> T {
    if a.is_nan() || (!b.is_nan() && a >= b) {
        a
    } else {
        b
    }
}

/// NaN-propagating minimum (the first NaN wins).
pub(crate) fn minimum<T: Elem>(a: T, b: T) -> T {
    if a.is_nan() || (!b.is_nan() && a <= b) {
        a
    } else {
        b
    }
}

/// `x > 0 ? x : 0`, NaN stays NaN.
pub(crate) fn relu<T: Number>(x: T) -> T {
    if x > T::ZERO || x.is_nan() {
        x
    } else {
        T::ZERO
    }
}

impl Elem for bool {
    fn wrap(a: ArrayD<bool>) -> Data {
        Data::Bool(a)
    }
}

impl Bits for bool {
    fn and(self, o: bool) -> bool {
        self & o
    }
    fn or(self, o: bool) -> bool {
        self | o
    }
    fn xor(self, o: bool) -> bool {
        self ^ o
    }
}

macro_rules! int_impl {
    ($t:ty, $variant:ident) => {
        impl Elem for $t {
            fn wrap(a: ArrayD<$t>) -> Data {
                Data::$variant(a)
            }
            fn is_nan(self) -> bool {
                false
            }
        }

        impl Number for $t {
            const ZERO: $t = 0;
            const IS_INT: bool = true;
            type Quotient = f64;
            fn add(self, o: $t) -> $t {
                self.wrapping_add(o)
            }
            fn sub(self, o: $t) -> $t {
                self.wrapping_sub(o)
            }
            fn mul(self, o: $t) -> $t {
                self.wrapping_mul(o)
            }
            #[inline(always)]
            fn mul_add(self, o: $t, acc: $t) -> $t {
                acc.wrapping_add(self.wrapping_mul(o))
            }
            fn neg(self) -> $t {
                self.wrapping_neg()
            }
            fn abs(self) -> $t {
                self.wrapping_abs()
            }
            fn true_div(self, o: $t) -> f64 {
                self as f64 / o as f64
            }
            fn floor_div(self, o: $t) -> $t {
                if o == 0 {
                    return 0;
                }
                let q = self.wrapping_div(o);
                // Truncation rounded toward zero; floor needs one less when the
                // signs differ and the division was inexact.
                if (self.wrapping_rem(o) != 0) && ((self < 0) != (o < 0)) {
                    q.wrapping_sub(1)
                } else {
                    q
                }
            }
            fn floor_mod(self, o: $t) -> $t {
                if o == 0 {
                    return 0;
                }
                let r = self.wrapping_rem(o);
                if r != 0 && ((r < 0) != (o < 0)) {
                    r.wrapping_add(o)
                } else {
                    r
                }
            }
            fn pow(self, o: $t) -> $t {
                // Square and multiply over the exponent's bits, wrapping.
                let (mut base, mut exp, mut acc) = (self, o.max(0) as u64, 1 as $t);
                while exp > 0 {
                    if exp & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    exp >>= 1;
                }
                acc
            }
            fn div_count(self, count: usize) -> $t {
                match <$t>::try_from(count) {
                    Ok(0) | Err(_) => 0,
                    Ok(c) => self.wrapping_div(c),
                }
            }
        }

        impl Bits for $t {
            fn and(self, o: $t) -> $t {
                self & o
            }
            fn or(self, o: $t) -> $t {
                self | o
            }
            fn xor(self, o: $t) -> $t {
                self ^ o
            }
        }

        impl Int for $t {
            fn not(self) -> $t {
                !self
            }
        }
    };
}

int_impl!(i32, I32);
int_impl!(i64, I64);

macro_rules! float_impl {
    ($t:ty, $variant:ident, $tanh:path, $($tanh_slice:path)?) => {
        impl Elem for $t {
            fn wrap(a: ArrayD<$t>) -> Data {
                Data::$variant(a)
            }
        }

        impl Number for $t {
            const ZERO: $t = 0.0;
            const IS_INT: bool = false;
            type Quotient = $t;
            fn add(self, o: $t) -> $t {
                self + o
            }
            fn sub(self, o: $t) -> $t {
                self - o
            }
            fn mul(self, o: $t) -> $t {
                self * o
            }
            #[inline(always)]
            fn mul_add(self, o: $t, acc: $t) -> $t {
                <$t>::mul_add(self, o, acc)
            }
            fn neg(self) -> $t {
                -self
            }
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            fn true_div(self, o: $t) -> $t {
                self / o
            }
            /// TF's `FloorDiv` on floats: `floor(x / y)`.
            fn floor_div(self, o: $t) -> $t {
                (self / o).floor()
            }
            /// TF's `FloorMod` on floats: `fmod`, moved to the divisor's sign.
            fn floor_mod(self, o: $t) -> $t {
                let r = self % o;
                if r != 0.0 && ((r < 0.0) != (o < 0.0)) {
                    r + o
                } else {
                    r
                }
            }
            fn pow(self, o: $t) -> $t {
                self.powf(o)
            }
            fn div_count(self, count: usize) -> $t {
                self / count as $t
            }
        }

        impl Float for $t {
            fn exp(self) -> $t {
                <$t>::exp(self)
            }
            fn ln(self) -> $t {
                <$t>::ln(self)
            }
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            fn tanh(self) -> $t {
                $tanh(self)
            }
            $(fn tanh_in_place(v: &mut [$t]) {
                $tanh_slice(v)
            })?
            fn sigmoid(self) -> $t {
                1.0 / (1.0 + <$t>::exp(-self))
            }
        }
    };
}

// float32's tanh is the crate's own (kernels/tanh32.rs, vectorisable);
// float64's is libm's.
float_impl!(f32, F32, super::tanh32::tanh_f32, super::tanh32::tanh_f32_in_place);
float_impl!(f64, F64, f64::tanh,);
