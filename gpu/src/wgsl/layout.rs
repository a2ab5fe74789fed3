//! The copy kernel behind every layout op (transpose, index, gather,
//! concat, stack): element `i` of a strided view of the source goes to a
//! strided place in the output, `width` words per element, any dtype.
//! `info`: `[n, rank, width, src_base, dst_base, shape[rank],
//! src_strides[rank], dst_strides[rank]]` (bases and strides in elements, as i32).

use super::{bindings, entry_1d, walk, Kernel};

pub(crate) fn copy_kernel() -> Kernel {
    let offsets = [("s", "5u + rank".to_string()), ("d", "5u + 2u * rank".to_string())];
    let body = format!(
        "let rank = info[1];\nlet width = info[2];\nvar s = bitcast<i32>(info[3]);\nvar d = bitcast<i32>(info[4]);\n{}\
         for (var k = 0u; k < width; k = k + 1u) {{ out[u32(d) * width + k] = src[u32(s) * width + k]; }}\n",
        walk("i", "rank", "5u", &offsets)
    );
    Kernel { source: format!("{}\n{}", bindings(&["src"], &["out: array<u32>"]), entry_1d(&body)) }
}
