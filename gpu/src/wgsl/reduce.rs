//! Reduction kernels: one invocation per output element folds its reduced
//! elements sequentially in row-major order, as graph's CPU kernel does, so
//! sums, maxima and argmaxes are the CPU's bit for bit (the mean's final
//! division aside). A dispatch folds positions `start..stop` and keeps the
//! accumulator in `state` (two words per output: value, argmax's index), so
//! long folds run as a chain of dispatches in the same order: llvmpipe
//! (lavapipe) silently ends an invocation's loops after 32767 iterations in
//! all (a sum of 50000 ones gave 32767). `info`: `[n_out, kept_rank,
//! red_rank, count, start, stop, kept_shape, kept_strides, red_shape, red_strides]`.

use super::{bindings, entry_1d, load, store, walk, Kernel, HELPERS};
use graph::{DType, Op};

/// Loop iterations one invocation may run on llvmpipe, with a margin.
pub(crate) const ITERATIONS: usize = 30000;

/// The fold of `op` on `dtype` over words: (step on word `w` at position
/// `j`, writing the output at the end); `None` without a GPU kernel.
fn fold(op: &Op, d: DType) -> Option<(String, String)> {
    let suffix = if d == DType::Float32 { "f32" } else { "i32" };
    let add = store(d, &format!("{} + {}", load(d, "acc"), load(d, "w")));
    let extreme =
        |f: &str| Some((format!("if (j == 0u) {{ acc = w; }} else {{ acc = {f}_{suffix}(acc, w); }}"), "out[i] = acc;".to_string()));
    match (op, d) {
        (_, DType::Int64 | DType::Float64) => None,
        (Op::ReduceSum { .. }, DType::Float32 | DType::Int32) => Some((format!("acc = {add};"), "out[i] = acc;".to_string())),
        (Op::ReduceMean { .. }, DType::Float32) => {
            Some((format!("acc = {add};"), "out[i] = bitcast<u32>(bitcast<f32>(acc) / i2f(i32(count)));".to_string()))
        }
        (Op::ReduceMean { .. }, DType::Int32) => Some((
            format!("acc = {add};"),
            "out[i] = bitcast<u32>(select(0, bitcast<i32>(acc) / i32(max(count, 1u)), count != 0u));".to_string(),
        )),
        (Op::ReduceMax { .. }, DType::Float32 | DType::Int32) => extreme("max"),
        (Op::ReduceMin { .. }, DType::Float32 | DType::Int32) => extreme("min"),
        // The first maximum; once the best is NaN nothing replaces it.
        (Op::ArgMax { .. }, _) => {
            let nan = |w: &str| if d == DType::Float32 { format!("is_nan_w({w})") } else { "false".to_string() };
            let greater = match d {
                DType::Bool => "w > acc".to_string(),
                _ => format!("{} > {}", load(d, "w"), load(d, "acc")),
            };
            Some((
                format!("if (j == 0u || (!{} && ({} || {greater}))) {{ acc = w; best = j; }}", nan("acc"), nan("w")),
                "out[2u * i] = best;\nout[2u * i + 1u] = 0u;".to_string(),
            ))
        }
        _ => None,
    }
}

pub(crate) fn reduce_kernel(op: &Op, dtype: DType) -> Option<Kernel> {
    let (step, finish) = fold(op, dtype)?;
    // The one reduced axis's stride (`red_strides[0]`); planted: its extent.
    let stride = if crate::planted::active("gpu_reduce_axis_stride") { "info[rs]" } else { "info[rs + 1u]" };
    let body = format!(
        "let kr = info[1];\nlet rr = info[2];\nlet count = info[3];\nlet start = info[4];\nlet stop = info[5];\n\
         let rs = 6u + 2u * kr;\nvar base = 0;\n{}\
         var acc = 0u;\nvar best = 0u;\n\
         if (start > 0u) {{ acc = state[2u * i]; best = state[2u * i + 1u]; }}\n\
         for (var j = start; j < stop; j = j + 1u) {{\n\
         var off = base;\n\
         if (rr == 1u) {{ off = off + i32(j * {stride}); }} else {{\n{}}}\n\
         let w = src[u32(off)];\n{step}\n}}\n\
         state[2u * i] = acc;\nstate[2u * i + 1u] = best;\n\
         if (stop == count) {{\n{finish}\n}}\n",
        walk("i", "kr", "6u", &[("base", "6u + kr".to_string())]),
        walk("j", "rr", "rs", &[("off", "rs + rr".to_string())]),
    );
    let outputs = ["out: array<u32>", "state: array<u32>"];
    Some(Kernel { source: format!("{}{HELPERS}\n{}", bindings(&["src"], &outputs), entry_1d(&body)) })
}
