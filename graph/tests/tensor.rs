//! Tensors, scalars, values, dtypes, errors and NumPy-style printing.

use stagecheck_graph::{float32_repr, float64_repr, DType, ErrorKind, OpError, Scalar, Tensor, Value};

fn f64s(v: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_f64(v.to_vec(), shape).unwrap()
}

#[test]
fn dtype_names_display_and_serde() {
    let names: Vec<String> = DType::ALL.iter().map(|d| d.to_string()).collect();
    assert_eq!(names, ["bool", "int32", "int64", "float32", "float64"]);
    for d in DType::ALL {
        assert_eq!(DType::from_name(d.name()), Some(d));
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(json, format!("\"{d}\""));
        assert_eq!(serde_json::from_str::<DType>(&json).unwrap(), d);
    }
    assert!(DType::Int32.is_int() && DType::Float64.is_float() && DType::Bool.is_bool());
    assert!(!DType::Bool.is_numeric());
}

#[test]
fn constructors_check_counts_and_report_shape_and_dtype() {
    let t = Tensor::from_i32(vec![1, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    assert_eq!(t.dtype(), DType::Int32);
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!((t.ndim(), t.len()), (2, 6));
    let err = Tensor::from_i32(vec![1, 2, 3], &[2, 2]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument);
    assert!(Tensor::from_f32(vec![], &[0, 5]).unwrap().is_empty());
    let s = Tensor::scalar_f64(2.5);
    assert_eq!(s.shape(), &[] as &[usize]);
    assert!(s.to_scalar().unwrap().bit_eq(Scalar::F64(2.5)));
    assert!(t.get(&[1, 2]).unwrap().bit_eq(Scalar::I32(6)));
    assert!(t.get(&[2, 0]).is_none());
    assert!(t.get(&[0]).is_none());
    assert!(t.to_scalar().is_none());
}

#[test]
fn too_large_shapes_are_refused_before_allocating() {
    let err = Tensor::from_f32(vec![], &[1 << 20, 1 << 20]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument);
    assert!(err.message.contains("too large"), "{err}");
    let err = Tensor::from_f32(vec![], &[usize::MAX, 2, 0]);
    assert!(err.is_err(), "overflowing products are refused, even with a zero dim");
}

#[test]
fn bit_equality_is_the_oracles() {
    let nan = f64s(&[f64::NAN], &[1]);
    assert_eq!(nan, nan.clone());
    assert_eq!(nan, f64s(&[f64::NAN], &[1]));
    assert_ne!(f64s(&[0.0], &[1]), f64s(&[-0.0], &[1]));
    assert_ne!(f64s(&[1.0], &[1]), f64s(&[1.0], &[1, 1]));
    assert_ne!(Tensor::scalar_i32(1), Tensor::scalar_i64(1));
}

#[test]
fn to_value_nests_by_shape() {
    let t = Tensor::from_i64(vec![1, 2, 3, 4], &[2, 2]).unwrap();
    let row = |a, b| Value::List(vec![Value::Int(a), Value::Int(b)]);
    assert_eq!(t.to_value(), Value::List(vec![row(1, 2), row(3, 4)]));
    assert_eq!(Tensor::scalar_bool(true).to_value(), Value::Bool(true));
    assert_eq!(Tensor::scalar_f32(0.1).to_value(), Value::Float(f64::from(0.1f32)));
    let empty = Tensor::from_f32(vec![], &[2, 0]).unwrap();
    assert_eq!(empty.to_value(), Value::List(vec![Value::List(vec![]), Value::List(vec![])]));
}

#[test]
fn from_value_follows_tfs_dtype_choice() {
    use Value::{Bool as B, Float as F, Int as I, List as L};
    let t = Tensor::from_value(&L(vec![L(vec![I(1), I(2)]), L(vec![I(3), I(4)])]), None).unwrap();
    assert_eq!((t.dtype(), t.shape()), (DType::Int32, &[2usize, 2][..]));
    assert_eq!(Tensor::from_value(&I(1 << 40), None).unwrap().dtype(), DType::Int64);
    assert_eq!(Tensor::from_value(&L(vec![I(1), F(2.5)]), None).unwrap().dtype(), DType::Float32);
    assert_eq!(Tensor::from_value(&L(vec![B(true)]), None).unwrap().dtype(), DType::Bool);
    let empty = Tensor::from_value(&L(vec![]), None).unwrap();
    assert_eq!((empty.dtype(), empty.shape()), (DType::Float32, &[0usize][..]));
    assert!(Tensor::from_value(&L(vec![L(vec![I(1)]), L(vec![])]), None).is_err(), "ragged");
    assert!(Tensor::from_value(&L(vec![L(vec![I(1)]), I(2)]), None).is_err(), "ragged");
    assert!(Tensor::from_value(&L(vec![B(true), I(2)]), None).is_err());
    assert!(Tensor::from_value(&F(1.5), Some(DType::Int32)).is_err());
    assert_eq!(Tensor::from_value(&F(3.0), Some(DType::Int32)).unwrap(), Tensor::scalar_i32(3));
    assert!(Tensor::from_value(&I(1 << 40), Some(DType::Int32)).is_err());
    assert_eq!(Tensor::from_value(&I(2), Some(DType::Float64)).unwrap(), Tensor::scalar_f64(2.0));
}

#[test]
fn floats_print_as_python_reprs() {
    let cases: &[(f64, &str)] = &[
        (1.0, "1.0"),
        (0.1, "0.1"),
        (2.5, "2.5"),
        (-0.0, "-0.0"),
        (100.0, "100.0"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (1.5e-5, "1.5e-05"),
        (1e15, "1000000000000000.0"),
        (1e16, "1e+16"),
        (1.2345678901234568e17, "1.2345678901234568e+17"),
        (1e-300, "1e-300"),
        (0.1 + 0.2, "0.30000000000000004"),
        (f64::NAN, "nan"),
        (f64::INFINITY, "inf"),
        (f64::NEG_INFINITY, "-inf"),
    ];
    for &(x, want) in cases {
        assert_eq!(float64_repr(x), want, "{x:e}");
    }
    assert_eq!(float32_repr(0.1), "0.1");
    assert_eq!(float32_repr(1.0 / 3.0), "0.33333334");
    assert_eq!(float32_repr(16777216.0), "16777216.0");
    assert_eq!(float32_repr(3.4028235e38), "3.4028235e+38");
}

#[test]
fn tensors_print_like_numpy() {
    assert_eq!(Tensor::scalar_i32(3).to_string(), "3");
    assert_eq!(Tensor::scalar_f32(2.5).to_string(), "2.5");
    assert_eq!(Tensor::scalar_f64(1.0).to_string(), "1.0");
    assert_eq!(Tensor::scalar_bool(true).to_string(), "True");
    assert_eq!(Tensor::from_i32(vec![1, 2, 3], &[3]).unwrap().to_string(), "[1 2 3]");
    assert_eq!(f64s(&[1., 2., 3., 4.], &[2, 2]).to_string(), "[[1. 2.]\n [3. 4.]]");
    assert_eq!(Tensor::from_i64(vec![1, 10, 100], &[3]).unwrap().to_string(), "[  1  10 100]");
    assert_eq!(Tensor::from_bool(vec![true, false], &[2]).unwrap().to_string(), "[ True False]");
    assert_eq!(f64s(&[1.5, 2.25], &[2]).to_string(), "[1.5  2.25]");
    assert_eq!(f64s(&[1.0, 2.5], &[2]).to_string(), "[1.  2.5]");
    assert_eq!(f64s(&[-1.5, 10.0], &[2]).to_string(), "[-1.5 10. ]");
    assert_eq!(f64s(&[1.5, f64::NAN], &[2]).to_string(), "[1.5 nan]");
    assert_eq!(f64s(&[1.0, f64::NEG_INFINITY], &[2]).to_string(), "[  1. -inf]");
    let cube = Tensor::from_i32((1..=8).collect(), &[2, 2, 2]).unwrap();
    assert_eq!(cube.to_string(), "[[[1 2]\n  [3 4]]\n\n [[5 6]\n  [7 8]]]");
    assert_eq!(Tensor::from_i32(vec![1, 2], &[2, 1]).unwrap().to_string(), "[[1]\n [2]]");
    assert_eq!(Tensor::from_f32(vec![], &[0]).unwrap().to_string(), "[]");
    assert_eq!(Tensor::from_f32(vec![], &[2, 0]).unwrap().to_string(), "[]");
    assert_eq!(Tensor::from_f32(vec![0.1, 0.2], &[2]).unwrap().to_string(), "[0.1 0.2]");
}

#[test]
fn errors_display_their_message() {
    let e = OpError::zero_division();
    assert_eq!(e.to_string(), "integer division by zero");
    assert_eq!(e.kind, ErrorKind::ZeroDivision);
    assert_eq!(OpError::recursion_limit().to_string(), "maximum recursion depth exceeded");
    assert_eq!(OpError::invalid("bad").kind, ErrorKind::InvalidArgument);
}
