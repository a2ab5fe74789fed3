//! The float ops with a tolerance, swept densely (every 4099th float32 bit
//! pattern, both signs, plus pairs for pow and division): each result within
//! the op's bound (`check_op`: `tolerance(op)`, subnormals possibly flushed
//! to zero as WGSL allows), and the largest error seen printed for the record.

mod common;
use graph::{Data, Op, Tensor};
use stagecheck_gpu::{check_op, tolerance};

fn sweep() -> Vec<f32> {
    (0..=0x7f80_0000u32).step_by(4099).flat_map(|b| [f32::from_bits(b), -f32::from_bits(b)]).collect()
}

fn floats(t: &Tensor) -> Vec<f32> {
    match t.data() {
        Data::F32(a) => a.iter().copied().collect(),
        _ => panic!("not float32"),
    }
}

fn ulps(a: f32, b: f32) -> u64 {
    let key = |x: f32| if x.is_sign_negative() { -i64::from(x.to_bits() & 0x7fff_ffff) } else { i64::from(x.to_bits()) };
    if a.is_nan() && b.is_nan() {
        0
    } else {
        (key(a) - key(b)).unsigned_abs()
    }
}

fn check(gpu: &stagecheck_gpu::Gpu, op: Op, inputs: &[Tensor]) {
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let cpu = graph::eval(&op, &refs).unwrap();
    let up: Vec<_> = inputs.iter().map(|t| gpu.upload(t).unwrap()).collect();
    let up_refs: Vec<_> = up.iter().collect();
    let got = gpu.download(&gpu.eval(&op, &up_refs).unwrap()).unwrap();
    // The largest error in ULP where the CPU's result is normal, and in absolute terms elsewhere.
    let pairs: Vec<(f32, f32)> = floats(&got).into_iter().zip(floats(&cpu)).collect();
    let normal = |c: f32| c.is_finite() && c.abs() >= f32::MIN_POSITIVE;
    let worst = pairs.iter().filter(|(_, c)| normal(*c)).map(|&(g, c)| ulps(g, c)).max().unwrap_or(0);
    let worst_abs = pairs.iter().filter(|(_, c)| !normal(*c) && c.is_finite()).map(|&(g, c)| (g - c).abs()).fold(0f32, f32::max);
    eprintln!(
        "{:>10}: {} values, largest error {worst} ULP (normal results), {worst_abs:e} absolute (others); tolerance {:?}",
        op.name(),
        got.len(),
        tolerance(&op)
    );
    check_op(&op, &refs, &got, &cpu).map(|_| ()).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
}

#[test]
fn transcendental_and_division_sweeps() {
    let Some(gpu) = common::gpu() else { return };
    let xs = sweep();
    let n = xs.len();
    let x = Tensor::from_f32(xs.clone(), &[n]).unwrap();
    for op in [Op::Exp, Op::Log, Op::Sqrt, Op::Tanh, Op::Sigmoid] {
        check(gpu, op, std::slice::from_ref(&x));
    }
    // Pairs: the sweep against a rotation of itself, and small exponents.
    let rotated: Vec<f32> = xs.iter().cycle().skip(n / 3).take(n).copied().collect();
    let y = Tensor::from_f32(rotated, &[n]).unwrap();
    for op in [Op::Div, Op::FloorDiv, Op::Mod] {
        check(gpu, op, &[x.clone(), y.clone()]);
    }
    let exponents = Tensor::from_f32((0..n).map(|i| (i % 41) as f32 * 0.5 - 10.0).collect(), &[n]).unwrap();
    let bases = Tensor::from_f32(xs.iter().map(|v| v.abs().clamp(1e-3, 1e3)).collect(), &[n]).unwrap();
    check(gpu, Op::Pow, &[bases, exponents]);
    check(
        gpu,
        Op::ReduceMean { axis: Some(vec![1]), keepdims: false },
        &[Tensor::from_f32(xs[..n / 7 * 7].to_vec(), &[n / 7, 7]).unwrap()],
    );
}
