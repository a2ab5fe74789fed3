mod common;
use graph::{Op, Tensor};
#[test]
fn smoke() {
    let Some(gpu) = common::gpu() else { return };
    eprintln!("{}", gpu.adapter_info());
    let a = Tensor::from_f32(vec![1.0, 2.5, -3.0, f32::NAN], &[2, 2]).unwrap();
    let b = Tensor::from_f32(vec![0.5, 2.0], &[2]).unwrap();
    for op in [Op::Add, Op::Mul, Op::Div, Op::Mod, Op::Pow, Op::Maximum, Op::Lt, Op::MatMul] {
        common::assert_same(gpu, &op, &[a.clone(), b.clone()]);
    }
}
