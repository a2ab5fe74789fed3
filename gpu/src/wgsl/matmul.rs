//! Tiled, batched matmul: 16 × 16 output tiles per workgroup, the operands'
//! tiles staged in workgroup memory. Each invocation adds its products over
//! `k` in increasing order, as graph's CPU kernel does; the product is
//! formed before the sum (WGSL lets the driver fuse them, and NVIDIA's
//! does), where the CPU kernel fuses each multiply-add: the two meet within
//! tolerance.rs's dot product bound, not bit for bit.
//! `info`: `[m, k, n, tiles_m, tiles_n, workgroups, first step, end step]`;
//! workgroups are laid out on a 2-D grid and numbered `batch, tile row,
//! tile column`. A dispatch runs steps (tiles along `k`) `first..end`,
//! continuing the sums already in `out`: long `k` runs as a chain of
//! dispatches (llvmpipe's loop limit, see reduce.rs).

use super::{bindings, load, scalar_type, store, Kernel};
use graph::DType;

pub(crate) const TILE: u32 = 16;

pub(crate) fn matmul_kernel(d: DType) -> Kernel {
    let (ty, zero) = (scalar_type(d), if d == DType::Float32 { "0.0" } else { "0" });
    // One step: stage a tile of each operand, then add its products in order.
    let step = format!(
        "let ka = s * {TILE}u + lid.x; var va: {ty} = {zero};\n\
         if (row < m && ka < k) {{ va = {la}; }}\n\
         ta[lid.y][lid.x] = va;\n\
         let kb = s * {TILE}u + lid.y; var vb: {ty} = {zero};\n\
         if (kb < k && col < n) {{ vb = {lb}; }}\n\
         tb[lid.y][lid.x] = vb;\n\
         workgroupBarrier();\n\
         let lim = min({TILE}u, k - s * {TILE}u);\n\
         for (var q = 0u; q < lim; q = q + 1u) {{ let p = ta[lid.y][q] * tb[q][lid.x]; acc = acc + p; }}\n\
         workgroupBarrier();\n",
        la = load(d, "a[abase + row * k + ka]"),
        lb = load(d, "b[bbase + kb * n + col]"),
    );
    let body = format!(
        "var<workgroup> ta: array<array<{ty}, {TILE}>, {TILE}>;\n\
         var<workgroup> tb: array<array<{ty}, {TILE}>, {TILE}>;\n\
         @compute @workgroup_size({TILE}, {TILE})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, \
                 @builtin(local_invocation_id) lid: vec3<u32>) {{\n\
         let m = info[0]; let k = info[1]; let n = info[2]; let tm = info[3]; let tn = info[4];\n\
         let wl = wid.x + wid.y * nwg.x;\n\
         if (wl >= info[5]) {{ return; }}\n\
         let batch = wl / (tm * tn); let t = wl % (tm * tn);\n\
         let row = (t / tn) * {TILE}u + lid.y; let col = (t % tn) * {TILE}u + lid.x;\n\
         let abase = batch * m * k; let bbase = batch * k * n;\n\
         let at = batch * m * n + row * n + col;\n\
         let inside = row < m && col < n;\n\
         var acc: {ty} = {zero};\n\
         if (info[6] > 0u && inside) {{ acc = {}; }}\n\
         for (var s = info[6]; s < info[7]; s = s + 1u) {{\n{step}}}\n\
         if (inside) {{ out[at] = {}; }}\n}}\n",
        load(d, "out[at]"),
        store(d, "acc"),
    );
    Kernel { source: format!("{}\n{body}", bindings(&["a", "b"], &["out: array<u32>"])) }
}
