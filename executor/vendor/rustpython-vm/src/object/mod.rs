mod core;
mod ext;
mod payload;
mod traverse;
mod traverse_object;

pub use self::core::*;
pub use self::ext::*;
pub use self::payload::*;
pub(crate) use core::SIZEOF_PYOBJECT_HEAD;
pub(crate) use core::{GC_PERMANENT, GC_UNTRACKED, GcLink};
pub use traverse::{MaybeTraverse, Traverse, TraverseFn};
