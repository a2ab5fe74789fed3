//! WGSL generated per kernel family and dtype: one template per family
//! (`elementwise`, `layout`, `reduce`, `matmul`), the element rules in a
//! table per op × dtype, the shared helpers in `helpers.wgsl`. Every
//! storage buffer is `array<u32>` (see tensor.rs); binding 0 is `info`, the
//! dispatch's shapes, strides and constants, so one pipeline serves every
//! shape.

pub(crate) mod elementwise;
pub(crate) mod layout;
pub(crate) mod matmul;
pub(crate) mod reduce;

use graph::DType;

pub(crate) const HELPERS: &str = include_str!("helpers.wgsl");

/// A compute shader with entry point `main`; its bindings are the buffers
/// passed to `Gpu::dispatch`, in order.
pub(crate) struct Kernel {
    pub source: String,
}

/// The WGSL expression reading a word `w` as a value of `dtype`.
pub(crate) fn load(dtype: DType, w: &str) -> String {
    match dtype {
        DType::Float32 => format!("bitcast<f32>({w})"),
        DType::Bool => format!("({w} != 0u)"),
        _ => format!("bitcast<i32>({w})"),
    }
}

/// The WGSL expression storing a value `v` of `dtype` as a word.
pub(crate) fn store(dtype: DType, v: &str) -> String {
    match dtype {
        DType::Bool => format!("select(0u, 1u, {v})"),
        _ => format!("bitcast<u32>({v})"),
    }
}

/// The WGSL type of a value of `dtype`.
pub(crate) fn scalar_type(dtype: DType) -> &'static str {
    match dtype {
        DType::Float32 => "f32",
        DType::Bool => "bool",
        _ => "i32",
    }
}

/// Binding declarations: `info`, the read-only inputs, then read-write outputs.
pub(crate) fn bindings(inputs: &[&str], outputs: &[&str]) -> String {
    let mut s = String::from("@group(0) @binding(0) var<storage, read> info: array<u32>;\n");
    for (i, name) in inputs.iter().enumerate() {
        s += &format!("@group(0) @binding({}) var<storage, read> {name}: array<u32>;\n", i + 1);
    }
    for (i, decl) in outputs.iter().enumerate() {
        s += &format!("@group(0) @binding({}) var<storage, read_write> {decl};\n", inputs.len() + 1 + i);
    }
    s
}

/// A 1-D kernel's entry: `i`, the invocation's element index on the 2-D
/// grid, returning past `info[0]` elements.
pub(crate) fn entry_1d(body: &str) -> String {
    format!(
        "@compute @workgroup_size({wg})\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n\
         let i = gid.x + gid.y * nwg.x * {wg}u;\n\
         if (i >= info[0]) {{ return; }}\n{body}}}\n",
        wg = crate::device::WORKGROUP
    )
}

/// WGSL walking the row-major coordinates of `index` over the `rank` dims
/// at `info[shape_at..]`, adding `coordinate * stride` to each offset
/// variable (`(name, strides_at)`: strides at `info[strides_at..]`, as i32).
pub(crate) fn walk(index: &str, rank: &str, shape_at: &str, offsets: &[(&str, String)]) -> String {
    let mut adds = String::new();
    for (name, strides_at) in offsets {
        adds += &format!("    {name} = {name} + i32(c) * bitcast<i32>(info[{strides_at} + ax]);\n");
    }
    format!(
        "{{\n  var rem = {index};\n  for (var dd = {rank}; dd > 0u; dd = dd - 1u) {{\n    let ax = dd - 1u;\n    \
         let size = info[{shape_at} + ax];\n    let c = rem % size;\n    rem = rem / size;\n{adds}  }}\n}}\n"
    )
}
