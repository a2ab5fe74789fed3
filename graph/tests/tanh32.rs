//! The accuracy of float32 `Tanh` (the crate's own, `kernels/tanh32.rs`):
//! against float64 `tanh` rounded to float32, in ULPs, over float32 inputs
//! taken at a fixed stride through all bit patterns (every input: the
//! ignored test `every_float32_input`, ~1 minute in release), plus the
//! special values.

use stagecheck_graph::{eval, Data, Op, Tensor};

/// Representable float32 values between `a` and `b` (±0 count as one).
fn ulps(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let bits = i64::from(x.to_bits());
        if bits & 0x8000_0000 != 0 {
            -(bits & 0x7fff_ffff)
        } else {
            bits
        }
    };
    key(a).abs_diff(key(b))
}

fn tanh_all(xs: Vec<f32>) -> Vec<f32> {
    let n = xs.len();
    let out = eval(&Op::Tanh, &[&Tensor::from_f32(xs, &[n]).unwrap()]).unwrap();
    match out.data() {
        Data::F32(a) => a.iter().copied().collect(),
        _ => panic!("tanh of float32 is float32"),
    }
}

/// (inputs checked, inputs off the reference, largest error in ULPs, its input).
fn sweep(stride: u64) -> (u64, u64, u64, f32) {
    let (mut checked, mut off, mut worst, mut worst_x) = (0, 0, 0, 0.0);
    let chunk = 1u64 << 22;
    let mut start = 0u64;
    while start < 1 << 32 {
        let xs: Vec<f32> = (start..(start + chunk * stride).min(1 << 32))
            .step_by(stride as usize)
            .map(|b| f32::from_bits(b as u32))
            .filter(|x| !x.is_nan())
            .collect();
        start += chunk * stride;
        for (&x, y) in xs.iter().zip(tanh_all(xs.clone())) {
            let want = f64::from(x).tanh() as f32;
            let e = ulps(y, want);
            checked += 1;
            if e > 0 {
                off += 1;
            }
            if e > worst {
                (worst, worst_x) = (e, x);
            }
        }
    }
    (checked, off, worst, worst_x)
}

#[test]
fn within_one_ulp_of_the_correctly_rounded_result() {
    let (checked, off, worst, x) = sweep(251);
    assert!(checked > 17_000_000);
    assert!(worst <= 1, "{worst} ULP at {x:e} ({off} of {checked} inputs off)");
}

#[test]
#[ignore = "every float32 input: about a minute in release"]
fn every_float32_input() {
    let (checked, off, worst, x) = sweep(1);
    println!("{checked} inputs, {off} off by 1 ULP or more, worst {worst} ULP at {x:e}");
    assert!(worst <= 1, "{worst} ULP at {x:e}");
}

#[test]
fn special_values() {
    let xs = vec![0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-45, -1e-45, 1.1754942e-38, 20.0, -9.5, 0.0625, -0.0625];
    let ys = tanh_all(xs.clone());
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let want = [0.0, -0.0, 1.0, -1.0, f32::NAN, 1e-45, -1e-45, 1.1754942e-38, 1.0, -1.0];
    assert_eq!(bits(&ys[..2]), bits(&want[..2]), "tanh(±0) = ±0");
    assert_eq!(bits(&ys[2..4]), bits(&want[2..4]), "tanh(±inf) = ±1");
    assert!(ys[4].is_nan());
    assert_eq!(bits(&ys[5..8]), bits(&want[5..8]), "subnormals and the smallest normal give themselves");
    assert_eq!(bits(&ys[8..10]), bits(&want[8..10]));
    assert_eq!(ys[10], -ys[11], "odd");
    assert_eq!(ys[10], (0.0625f64).tanh() as f32);
}
