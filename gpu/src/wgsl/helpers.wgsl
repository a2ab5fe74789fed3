// Helpers shared by every generated kernel. Element rules follow
// graph/src/kernels (Rust semantics), written out where WGSL's own
// operators differ: NaN tests on bits (WGSL lets compilers assume no NaN),
// float -> int saturating, int -> float correctly rounded, exact fmod,
// C's pow special cases, floor division and modulo with Python's signs.

fn is_nan_w(w: u32) -> bool {
    return (w & 0x7fffffffu) > 0x7f800000u;
}

fn i32_min() -> i32 {
    return bitcast<i32>(0x80000000u);
}

// int -> float rounded to nearest even (Rust's `as`): both halves are exact
// in f32 and the one addition rounds once.
fn i2f(x: i32) -> f32 {
    return f32(x >> 16u) * 65536.0 + f32(x & 0xffff);
}

// float -> int: truncation, saturating, NaN -> 0 (Rust's `as`).
fn f2i(w: u32) -> i32 {
    if (is_nan_w(w)) {
        return 0;
    }
    let f = bitcast<f32>(w);
    if (f >= 2147483648.0) {
        return 2147483647;
    }
    if (f <= -2147483648.0) {
        return i32_min();
    }
    return i32(f);
}

// NaN-propagating maximum/minimum on words, the first NaN winning.
fn max_f32(wa: u32, wb: u32) -> u32 {
    if (is_nan_w(wa)) { return wa; }
    if (is_nan_w(wb)) { return wb; }
    return select(wb, wa, bitcast<f32>(wa) >= bitcast<f32>(wb));
}

fn min_f32(wa: u32, wb: u32) -> u32 {
    if (is_nan_w(wa)) { return wa; }
    if (is_nan_w(wb)) { return wb; }
    return select(wb, wa, bitcast<f32>(wa) <= bitcast<f32>(wb));
}

fn max_i32(wa: u32, wb: u32) -> u32 {
    return select(wb, wa, bitcast<i32>(wa) >= bitcast<i32>(wb));
}

fn min_i32(wa: u32, wb: u32) -> u32 {
    return select(wb, wa, bitcast<i32>(wa) <= bitcast<i32>(wb));
}

// x / y. WGSL bounds `/` (2.5 ULP) only for |y| in [2^-126, 2^126]:
// beyond, a GPU may compute x * (1 / y) with 1 / y flushed to zero (the
// H200 gave 0 for 3 / 1.1e38, 2.7e-38). Scaling both operands by 2^-4
// brings y into range exactly and changes the quotient only where x
// becomes subnormal, where the quotient is itself flushable.
fn div_f32(x: f32, y: f32) -> f32 {
    if (abs(y) > 8.5070592e37) {
        return (x * 0.0625) / (y * 0.0625);
    }
    return x / y;
}

fn floordiv_i32(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    if (b == -1) { return -a; }
    let q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) { return q - 1; }
    return q;
}

fn mod_i32(a: i32, b: i32) -> i32 {
    if (b == 0 || b == -1) { return 0; }
    let r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) { return r + b; }
    return r;
}

// Square and multiply over the exponent's bits, wrapping; a negative
// exponent counts as 0 (the caller flags it as an error).
fn pow_i32(a: i32, b: i32) -> i32 {
    var base = a;
    var e = u32(max(b, 0));
    var acc = 1;
    loop {
        if (e == 0u) { break; }
        if ((e & 1u) == 1u) { acc = acc * base; }
        base = base * base;
        e = e >> 1u;
    }
    return acc;
}

// The significand of a finite nonzero float's bits `u` (exponent field `e`)
// with its implicit bit, subnormals normalised (their exponent goes below 1).
struct Significand { m: u32, e: i32 }

fn significand(u: u32, e: i32) -> Significand {
    if (e != 0) {
        return Significand((u & 0x7fffffu) | 0x800000u, e);
    }
    var ee = 0;
    var i = u << 9u;
    loop { if ((i >> 31u) != 0u) { break; } ee -= 1; i = i << 1u; }
    return Significand(u << u32(1 - ee), ee);
}

// fmod, exact (musl's fmodf on the bits).
fn fmod_f32(x: f32, y: f32) -> f32 {
    var ux = bitcast<u32>(x);
    var uy = bitcast<u32>(y);
    var ex = i32((ux >> 23u) & 0xffu);
    var ey = i32((uy >> 23u) & 0xffu);
    let sx = ux & 0x80000000u;
    if ((uy << 1u) == 0u || is_nan_w(uy) || ex == 0xff) {
        return bitcast<f32>(0x7fc00000u);
    }
    if ((ux << 1u) <= (uy << 1u)) {
        if ((ux << 1u) == (uy << 1u)) { return bitcast<f32>(sx); }
        return x;
    }
    let nx = significand(ux, ex);
    ux = nx.m;
    ex = nx.e;
    let ny = significand(uy, ey);
    uy = ny.m;
    ey = ny.e;
    loop {
        if (ex <= ey) { break; }
        let i = ux - uy;
        if ((i >> 31u) == 0u) {
            if (i == 0u) { return bitcast<f32>(sx); }
            ux = i;
        }
        ux = ux << 1u;
        ex -= 1;
    }
    let i = ux - uy;
    if ((i >> 31u) == 0u) {
        if (i == 0u) { return bitcast<f32>(sx); }
        ux = i;
    }
    loop { if ((ux >> 23u) != 0u) { break; } ux = ux << 1u; ex -= 1; }
    if (ex > 0) {
        ux = (ux - 0x800000u) | (u32(ex) << 23u);
    } else {
        ux = ux >> u32(1 - ex);
    }
    return bitcast<f32>(ux | sx);
}

// Floor modulo: fmod moved to the divisor's sign.
fn floormod_f32(a: f32, b: f32) -> f32 {
    let r = fmod_f32(a, b);
    let wr = bitcast<u32>(r);
    if (is_nan_w(wr) || (wr << 1u) == 0u) { return r; }
    if ((wr >> 31u) != (bitcast<u32>(b) >> 31u) && !((bitcast<u32>(b) << 1u) == 0u)) {
        // A subnormal r would be flushed by the addition (the H200 gave b
        // for 9.5e-39): read it exactly, both scaled by 2^64 where b is
        // small enough for the sum to differ from b (exact, or a subnormal
        // result the GPU may flush); above 2^-100 the sum rounds to b.
        if ((wr & 0x7f800000u) == 0u && abs(b) < 7.888609e-31) {
            let rs = select(1.0, -1.0, (wr >> 31u) != 0u) * f32(wr & 0x7fffffu) * 2.5849394e-26;
            return (rs + b * 1.8446744e19) * 5.421011e-20;
        }
        return r + b;
    }
    return r;
}

fn is_int_f32(y: f32) -> bool {
    return floor(y) == y;
}

fn is_odd_f32(y: f32) -> bool {
    return abs(y) < 16777216.0 && is_int_f32(y) && (i32(y) & 1) == 1;
}

// C's pow (Rust's powf): special cases written out, WGSL's pow for x > 0.
fn pow_f32(x: f32, y: f32) -> f32 {
    let wx = bitcast<u32>(x);
    let wy = bitcast<u32>(y);
    if ((wy << 1u) == 0u || wx == 0x3f800000u) { return 1.0; }
    if (is_nan_w(wx) || is_nan_w(wy)) { return bitcast<f32>(0x7fc00000u); }
    let inf = bitcast<f32>(0x7f800000u);
    let ax = abs(x);
    if ((wy & 0x7fffffffu) == 0x7f800000u) {
        if (ax == 1.0) { return 1.0; }
        if ((ax > 1.0) == (y > 0.0)) { return inf; }
        return 0.0;
    }
    let negative = (wx >> 31u) == 1u;
    let odd = is_odd_f32(y);
    var mag: f32;
    if ((wx << 1u) == 0u) {
        mag = select(0.0, inf, y < 0.0);
    } else if ((wx & 0x7fffffffu) == 0x7f800000u) {
        mag = select(0.0, inf, y > 0.0);
    } else {
        if (negative && !is_int_f32(y)) { return bitcast<f32>(0x7fc00000u); }
        mag = pow_pos(ax, y);
    }
    if (negative && odd) { return -mag; }
    return mag;
}

// x^y for x > 0 as exp2(y · log2(x)) (WGSL's definition), the exponent
// split so exp2 never sees |z| > 64: lavapipe's pow was 40% off near 2^127.
fn pow_pos(x: f32, y: f32) -> f32 {
    let z = y * log2_f32(x);
    if (z > 64.0) { return exp2(z - 64.0) * 18446744073709551616.0; }
    if (z < -64.0) { return exp2(z + 64.0) * 5.421010862427522e-20; }
    return exp2(z);
}

// tanh as (1 - e^-2|x|) / (1 + e^-2|x|): WGSL's tanh is inherited from
// sinh/cosh, which overflow for large |x|.
fn tanh_f32(x: f32) -> f32 {
    let w = bitcast<u32>(x);
    let ax = abs(x);
    if (is_nan_w(w) || ax < 0.000244140625) { return x; }
    if (ax > 10.0) { return sign(x); }
    let t = exp(-2.0 * ax);
    let r = (1.0 - t) / (1.0 + t);
    return select(r, -r, x < 0.0);
}

// Subnormal inputs scaled by 2^24 first (exactly): lavapipe's log, log2 and sqrt
// read a subnormal's bits as if it were normal (log(1e-40) gave -88.03).
fn is_subnormal_w(w: u32) -> bool {
    return (w & 0x7f800000u) == 0u && (w & 0x7fffffu) != 0u;
}

fn log_f32(x: f32) -> f32 {
    if (is_subnormal_w(bitcast<u32>(x))) {
        return log(x * 16777216.0) - 16.635532333438686;
    }
    return log(x);
}

fn log2_f32(x: f32) -> f32 {
    if (is_subnormal_w(bitcast<u32>(x))) {
        return log2(x * 16777216.0) - 24.0;
    }
    return log2(x);
}

fn sqrt_f32(x: f32) -> f32 {
    if (is_subnormal_w(bitcast<u32>(x))) {
        return sqrt(x * 16777216.0) * 0.000244140625;
    }
    return sqrt(x);
}
