//! Reduction kernels: one invocation per output element folds its reduced
//! elements sequentially in row-major order, as graph's CPU kernel does, so
//! sums, maxima and argmaxes are the CPU's bit for bit (the mean's final
//! division aside). `info`: `[n_out, kept_rank, red_rank, count,
//! kept_shape, kept_strides, red_shape, red_strides]`.

use super::{bindings, entry_1d, load, scalar_type, store, walk, Kernel, HELPERS};
use graph::{DType, Op};

/// The fold of `op` on `dtype`: (accumulator init, step on word `w` at
/// position `j`, the output words); `None` without a GPU kernel.
fn fold(op: &Op, d: DType) -> Option<(String, String, String)> {
    let ty = scalar_type(d);
    let zero = if d == DType::Float32 { "0.0" } else { "0" };
    let x = load(d, "w");
    let sum = (format!("var acc: {ty} = {zero};"), format!("acc = acc + {x};"));
    let suffix = if d == DType::Float32 { "f32" } else { "i32" };
    let extreme = |f: &str| {
        Some((
            "var acc = 0u;".to_string(),
            format!("if (j == 0u) {{ acc = w; }} else {{ acc = {f}_{suffix}(acc, w); }}"),
            "out[i] = acc;".to_string(),
        ))
    };
    match (op, d) {
        (_, DType::Int64 | DType::Float64) => None,
        (Op::ReduceSum { .. }, DType::Float32 | DType::Int32) => Some((sum.0, sum.1, format!("out[i] = {};", store(d, "acc")))),
        (Op::ReduceMean { .. }, DType::Float32) => {
            Some((sum.0, sum.1, format!("out[i] = {};", store(d, "acc / i2f(i32(count))"))))
        }
        (Op::ReduceMean { .. }, DType::Int32) => {
            Some((sum.0, sum.1, format!("out[i] = {};", store(d, "select(0, acc / i32(count), count != 0u)"))))
        }
        (Op::ReduceMax { .. }, DType::Float32 | DType::Int32) => extreme("max"),
        (Op::ReduceMin { .. }, DType::Float32 | DType::Int32) => extreme("min"),
        // The first maximum; once the best is NaN nothing replaces it.
        (Op::ArgMax { .. }, _) => {
            let nan = |w: &str| if d == DType::Float32 { format!("is_nan_w({w})") } else { "false".to_string() };
            let greater = match d {
                DType::Bool => "w > acc".to_string(),
                _ => format!("{x} > {}", load(d, "acc")),
            };
            Some((
                "var acc = 0u;\nvar best = 0u;".to_string(),
                format!(
                    "if (j == 0u || (!{} && ({} || {greater}))) {{ acc = w; best = j; }}",
                    nan("acc"),
                    nan("w")
                ),
                "out[2u * i] = best;\nout[2u * i + 1u] = 0u;".to_string(),
            ))
        }
        _ => None,
    }
}

pub(crate) fn reduce_kernel(op: &Op, dtype: DType) -> Option<Kernel> {
    let (init, step, finish) = fold(op, dtype)?;
    let red_offset = [("off", "rs + rr".to_string())];
    let body = format!(
        "let kr = info[1];\nlet rr = info[2];\nlet count = info[3];\nlet rs = 4u + 2u * kr;\nvar base = 0;\n{}{init}\n\
         for (var j = 0u; j < count; j = j + 1u) {{\n\
         var off = base;\n\
         if (rr == 1u) {{ off = off + i32(j * info[rs + 1u]); }} else {{\n{}}}\n\
         let w = src[u32(off)];\n{step}\n}}\n{finish}\n",
        walk("i", "kr", "4u", &[("base", "4u + kr".to_string())]),
        walk("j", "rr", "rs", &red_offset),
    );
    Some(Kernel { source: format!("{}{HELPERS}\n{}", bindings(&["src"], &["out: array<u32>"]), entry_1d(&body)) })
}
