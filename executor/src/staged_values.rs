//! The staging runtime's own objects as comparable values
//! (`stagecheck_staging::tensors::seen` finds them): an `sc.Tensor` by
//! dtype, shape and elements, an `sc.function` as the function it wraps, a
//! symbolic tensor (a trace in progress) as opaque.

use crate::render::str_of;
use crate::Value;
use rustpython_vm::{PyObject, VirtualMachine};
use stagecheck_graph::{Data, Scalar};
use stagecheck_staging::tensors::{seen, Seen};

/// Elements of a tensor rendered whole, nested as its shape; of a bigger
/// one, the first ones flat in row-major order, then `Truncated` (a
/// rendered value is bounded in bytes, [`crate::bounds`]: a 10**7-element
/// tensor was 10**7 values, hundreds of MB of JSON). What is cut is not
/// compared.
pub const MAX_ELEMENTS_RENDERED: usize = 4096;

/// `obj` rendered, when it is one of the runtime's own objects.
pub(crate) fn render(obj: &PyObject, vm: &VirtualMachine) -> Option<Value> {
    Some(match seen(obj, vm)? {
        Seen::Function(None) => Value::Opaque { type_name: "sc.function of a callable object".into() },
        Seen::Function(Some(qualname)) => Value::Function { qualname: str_of(&qualname) },
        Seen::Tensor(t) => Value::Tensor {
            dtype: t.dtype().name().to_string(),
            shape: t.shape().to_vec(),
            values: Box::new(match t.len() {
                n if n <= MAX_ELEMENTS_RENDERED => element_values(&t.to_value()),
                _ => first_elements(&t),
            }),
        },
        Seen::Symbolic(what) => Value::Opaque { type_name: what },
    })
}

fn first_elements(t: &stagecheck_graph::Tensor) -> Value {
    const N: usize = MAX_ELEMENTS_RENDERED;
    let scalars: Vec<Scalar> = match t.data() {
        Data::Bool(a) => a.iter().take(N).map(|&v| Scalar::Bool(v)).collect(),
        Data::I32(a) => a.iter().take(N).map(|&v| Scalar::I32(v)).collect(),
        Data::I64(a) => a.iter().take(N).map(|&v| Scalar::I64(v)).collect(),
        Data::F32(a) => a.iter().take(N).map(|&v| Scalar::F32(v)).collect(),
        Data::F64(a) => a.iter().take(N).map(|&v| Scalar::F64(v)).collect(),
    };
    let mut values: Vec<Value> = scalars.into_iter().map(|s| element_values(&s.to_value())).collect();
    values.push(Value::Truncated);
    Value::List(values)
}

fn element_values(v: &stagecheck_graph::Value) -> Value {
    use stagecheck_graph::Value as G;
    match v {
        G::Bool(b) => Value::Bool(*b),
        G::Int(i) => Value::Int(i.to_string()),
        G::Float(f) => Value::Float(f.to_bits()),
        G::List(items) => Value::List(items.iter().map(element_values).collect()),
    }
}
