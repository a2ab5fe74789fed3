//! JSON round trips: a library comes back equal, floats bit for bit.

use super::*;
use stagecheck_graph::IndexItem;

fn rich_library() -> Library {
    let mut lib = countdown();
    let x = sig(DType::Float32, &[3]);
    lib.add(func(
        "consts",
        vec![x.clone()],
        vec![x],
        vec![
            konst(Tensor::from_f32(vec![0.1, -0.0, f32::NAN], &[3]).unwrap()),
            konst(Tensor::from_f64(vec![f64::from_bits(0xfff8_0000_0000_0001), f64::NEG_INFINITY, 1e-310], &[3]).unwrap()),
            konst(Tensor::from_i32(vec![i32::MIN, 7], &[2, 1]).unwrap()),
            konst(Tensor::from_i64(vec![i64::MAX], &[]).unwrap()),
            konst(Tensor::from_bool(vec![], &[0, 2]).unwrap()),
            konst(Tensor::from_f32(vec![], &[0]).unwrap()),
            op(Op::Fill { shape: vec![2], dtype: DType::Int64, value: 0.1 }, &[]),
            op(Op::Range { start: -0.5, limit: 1e20, delta: 3.3, dtype: DType::Float64 }, &[]),
            op(Op::Index { items: vec![IndexItem::Slice { start: Some(-1), stop: None, step: Some(-2) }, IndexItem::Ellipsis] }, &[0]),
            op(Op::Cast { dtype: DType::Bool }, &[0]),
            op(Op::Add, &[0, 1]),
        ],
        &[11],
    ));
    lib
}

#[test]
fn libraries_round_trip_through_json() {
    let lib = rich_library();
    let json = serde_json::to_string_pretty(&lib).unwrap();
    let back: Library = serde_json::from_str(&json).unwrap();
    assert_eq!(back, lib);
    assert_eq!(serde_json::to_string_pretty(&back).unwrap(), json);
    assert_eq!(back.to_string(), lib.to_string());
}

#[test]
fn json_is_readable() {
    let json = serde_json::to_string(&cond_lib()).unwrap();
    assert!(json.contains(r#"{"op":{"op":"mul","inputs":[0,1]}}"#), "{json}");
    assert!(json.contains(r#""const":{"dtype":"float32","shape":[],"data":["2.0"]}"#), "{json}");
    assert!(json.contains(r#""cond":{"pred":1,"then_fn":1,"else_fn":2,"inputs":[0]}"#), "{json}");
    let t: Tensor = serde_json::from_str(r#"{"dtype":"float64","shape":[2],"data":["nan:0xfff8000000000001","-0.0"]}"#).unwrap();
    assert!(t.scalars()[0].bit_eq(stagecheck_graph::Scalar::F64(f64::from_bits(0xfff8_0000_0000_0001))));
    assert!(t.scalars()[1].bit_eq(stagecheck_graph::Scalar::F64(-0.0)));
}

#[test]
fn malformed_tensors_are_refused() {
    for bad in [
        r#"{"dtype":"int32","shape":[1],"data":[3000000000]}"#,
        r#"{"dtype":"int32","shape":[2],"data":[1]}"#,
        r#"{"dtype":"bool","shape":[1],"data":[1]}"#,
        r#"{"dtype":"float32","shape":[1],"data":["x"]}"#,
        r#"{"dtype":"float32","shape":[1],"data":[1.5]}"#,
    ] {
        assert!(serde_json::from_str::<Tensor>(bad).is_err(), "{bad}");
    }
}
