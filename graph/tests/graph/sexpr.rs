//! S-expression snapshots.

use super::*;

#[test]
fn cond_library_prints_as_in_the_docs() {
    let want = "\
(def f ((x0 float32 [3]) (x1 bool []))
  (let ((x2 (cond x1 then else (x0))))
    (x2)))

(def then ((x0 float32 [3]))
  (let ((x1 (const float32 [] 2.0))
        (x2 (mul x0 x1)))
    (x2)))

(def else ((x0 float32 [3]))
  (let ((x1 (neg x0)))
    (x1)))";
    assert_eq!(cond_lib().to_string(), want);
}

#[test]
fn loops_multiple_outputs_and_attributes_print() {
    let want = "\
(def main ()
  (let ((x0 (const int32 [] 1))
        (x1 (const int32 [] 0))
        ((x2 x3) (while cond body (x0 x1))))
    (x3 x2)))";
    assert_eq!(sum_loop().function_sexpr(FnId(0)), want);

    use stagecheck_graph::IndexItem;
    let x = sig(DType::Float64, &[2, 3]);
    let mut lib = Library::new();
    lib.add(func(
        "attrs",
        vec![x],
        vec![sig(DType::Float64, &[3]), sig(DType::Float64, &[1, 1, 3]), sig(DType::Int32, &[4])],
        vec![
            op(Op::ReduceSum { axis: Some(vec![0, -1]), keepdims: false }, &[0]),
            op(Op::ReduceMax { axis: None, keepdims: true }, &[0]),
            op(
                Op::Index {
                    items: vec![
                        IndexItem::At(-1),
                        IndexItem::Slice { start: None, stop: Some(2), step: Some(-1) },
                        IndexItem::NewAxis,
                        IndexItem::Ellipsis,
                    ],
                },
                &[0],
            ),
            op(Op::Range { start: 0.0, limit: 4.0, delta: 1.0, dtype: DType::Int32 }, &[]),
            konst(Tensor::from_f64(vec![0.1, -0.0, f64::INFINITY], &[3]).unwrap()),
            op(Op::Concat { axis: 0 }, &[0, 0]),
        ],
        &[7, 2, 4],
    ));
    let want = "\
(def attrs ((x0 float64 [2 3]))
  (let ((x1 (reduce_sum x0 :axis (0 -1) :keepdims false))
        (x2 (reduce_max x0 :axis none :keepdims true))
        (x3 (index x0 :items (-1 (slice none 2 -1) newaxis ...)))
        (x4 (range :start 0.0 :limit 4.0 :delta 1.0 :dtype int32))
        (x5 (const float64 [3] (0.1 -0.0 inf)))
        (x6 (concat x0 x0 :axis 0)))
    (x7 x2 x4)))";
    assert_eq!(lib.to_string(), want);
}

#[test]
fn shared_names_are_told_apart_by_id() {
    let mut lib = cond_lib();
    lib.functions[2].name = "then".into();
    let text = lib.to_string();
    assert!(text.contains("(cond x1 then#1 then#2 (x0))"), "{text}");
    assert!(text.contains("(def then#2 ((x0 float32 [3]))"), "{text}");
}
