//! The sizes, in bytes, of what the text methods [`crate::alloc_guards`] wraps
//! would build, computed before they build it (each aborted the
//! worker, "memory allocation of 2147483648 bytes failed", or sat in native
//! code): `replace`, `join`, `translate` (a dict table), `hex`, the
//! `%`-format and the widths and precisions of format specs (`__format__`,
//! reached by `format()`, f-strings and `str.format`).
//!
//! Exact where the cost is a pass over the input (occurrences counted, items
//! summed), an upper bound otherwise (a `%`-format's text plus its widths
//! and its numbers' precisions); only builtin payloads are read, never
//! through the program's code (but for a `translate` table's lookups, which
//! compare with a key the program put there only on a hash collision, as the
//! original's own lookups do).

use num_traits::{Signed, ToPrimitive};
use rustpython_vm::{
    builtins::{PyByteArray, PyBytes, PyDict, PyInt, PyStr, PyTuple},
    convert::TryFromBorrowedObject,
    protocol::PyBuffer,
    PyObject, PyObjectRef, VirtualMachine,
};

/// `f` of the bytes of a str (WTF-8), bytes or bytearray and its length in
/// units (characters of a str, else bytes); not copied.
fn with_text<R>(x: &PyObject, f: impl FnOnce(&[u8], usize) -> R) -> Option<R> {
    if let Some(s) = x.downcast_ref::<PyStr>() {
        Some(f(s.as_wtf8().as_bytes(), s.char_len()))
    } else if let Some(b) = x.downcast_ref::<PyBytes>() {
        Some(f(b.as_bytes(), b.as_bytes().len()))
    } else if let Some(b) = x.downcast_ref::<PyByteArray>() {
        let b = b.borrow_buf();
        Some(f(&b, b.len()))
    } else {
        None
    }
}

/// Byte length of a str, bytes, bytearray or other buffer.
fn len_of(x: &PyObject, vm: &VirtualMachine) -> Option<u128> {
    if let Some(s) = x.downcast_ref::<PyStr>() {
        return Some(s.as_wtf8().len() as u128);
    }
    PyBuffer::try_from_borrowed_object(vm, x).ok().map(|b| b.desc.len as u128)
}

/// |x| of an int, saturating.
fn magnitude(x: &PyObject) -> Option<u128> {
    let v = x.downcast_ref::<PyInt>()?.as_bigint().abs();
    Some(v.to_u128().unwrap_or(u128::MAX))
}

/// `s.replace(old, new[, count])`: the input plus, per replaced occurrence,
/// what `new` adds (`count` < 0: all).
pub fn replaced(s: &PyObject, old: &PyObject, new: &PyObject, count: Option<&PyObjectRef>) -> Option<u128> {
    let (new_len, old_len) = (len_text(new)?, len_text(old)?);
    if new_len <= old_len {
        return None;
    }
    let limit = match count.and_then(|c| c.downcast_ref::<PyInt>()) {
        Some(c) if !c.as_bigint().is_negative() => c.as_bigint().to_u128().unwrap_or(u128::MAX),
        _ => u128::MAX,
    };
    let (len, occurrences) = with_text(s, |hay, units| {
        let found = match old_len {
            0 => Some(units as u128 + 1),
            _ => with_text(old, |needle, _| memchr::memmem::find_iter(hay, needle).count() as u128),
        };
        (hay.len() as u128, found)
    })?;
    Some(len + occurrences?.min(limit) * (new_len - old_len) as u128)
}

fn len_text(x: &PyObject) -> Option<usize> {
    with_text(x, |b, _| b.len())
}

/// `sep.join(items)`: the items and the separators between them.
pub fn joined(sep: &PyObject, items: &[PyObjectRef], vm: &VirtualMachine) -> Option<u128> {
    let sep = len_of(sep, vm)?;
    let parts: u128 = items.iter().map(|x| len_of(x, vm).unwrap_or(0)).fold(0, u128::saturating_add);
    Some(parts.saturating_add(sep.saturating_mul(items.len().saturating_sub(1) as u128)))
}

/// `s.translate(table)` for a dict table: each character's mapping (a str's
/// bytes; else the character's at most 4).
pub fn translated(s: &PyObject, table: &PyObject, vm: &VirtualMachine) -> Option<u128> {
    let s = s.downcast_ref::<PyStr>()?;
    let table = table.downcast_ref::<PyDict>()?;
    let longest = table.values_vec().iter().filter_map(|v| v.downcast_ref::<PyStr>().map(|t| t.as_wtf8().len())).max()?;
    if longest <= 4 {
        return None;
    }
    let mut size: u128 = 0;
    for cp in s.as_wtf8().code_points() {
        let key = vm.ctx.new_int(cp.to_u32());
        let mapped = table.get_item_opt(key.as_ref() as &PyObject, vm).ok().flatten();
        size += mapped.and_then(|v| v.downcast_ref::<PyStr>().map(|t| t.as_wtf8().len())).unwrap_or(4) as u128;
    }
    Some(size)
}

/// `b.hex([sep[, bytes_per_sep]])`: two digits a byte, a separator at most
/// between two bytes.
pub fn hexed(b: &PyObject, sep: Option<&PyObjectRef>, vm: &VirtualMachine) -> Option<u128> {
    let n = len_of(b, vm)?;
    Some(if sep.is_some() { n * 3 } else { n * 2 })
}

/// Width plus precision of a format spec (`[[fill]align][sign][z][#][0][width][,_][.precision][type]`);
/// the precision only where it pads (`keep_precision`: a float's, a
/// complex's; a str's only cuts, an int's is an error).
pub fn spec_size(spec: &PyObject, keep_precision: bool) -> Option<u128> {
    let spec: Vec<char> = spec.downcast_ref::<PyStr>()?.to_string_lossy().chars().collect();
    let align = |c: Option<&char>| c.is_some_and(|c| "<>=^".contains(*c));
    let mut i = if align(spec.get(1)) {
        2
    } else if align(spec.first()) {
        1
    } else {
        0
    };
    while spec.get(i).is_some_and(|c| "+- z#0".contains(*c)) {
        i += 1;
    }
    let number = |i: &mut usize| {
        let mut n: u128 = 0;
        while let Some(d) = spec.get(*i).and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d as u128);
            *i += 1;
        }
        n
    };
    let width = number(&mut i);
    while spec.get(i).is_some_and(|c| ",_".contains(*c)) {
        i += 1;
    }
    let precision = if spec.get(i) == Some(&'.') {
        i += 1;
        number(&mut i)
    } else {
        0
    };
    Some(width.saturating_add(if keep_precision { precision } else { 0 }))
}

/// `fmt % values`: the format's text plus every width and precision it
/// asks for (`*` read from the values).
pub fn cformatted(fmt: &PyObject, values: &PyObject) -> Option<u128> {
    with_text(fmt, |text, _| cformat_size(text, values))
}

fn cformat_size(text: &[u8], values: &PyObject) -> u128 {
    let args: Vec<&PyObject> = match values.downcast_ref::<PyTuple>() {
        Some(t) => t.as_slice().iter().map(|x| &**x).collect(),
        None => vec![values],
    };
    let mut next = 0;
    let mut size = text.len() as u128;
    let mut i = 0;
    let quantity = |i: &mut usize, next: &mut usize| -> u128 {
        if text.get(*i) == Some(&b'*') {
            *i += 1;
            *next += 1;
            return args.get(*next - 1).and_then(|x| magnitude(x)).unwrap_or(0);
        }
        let mut n: u128 = 0;
        while let Some(d) = text.get(*i).filter(|c| c.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add((d - b'0') as u128);
            *i += 1;
        }
        n
    };
    while i < text.len() {
        if text[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if text.get(i) == Some(&b'(') {
            while i < text.len() && text[i] != b')' {
                i += 1;
            }
            i += 1;
        }
        while text.get(i).is_some_and(|c| b"-+ #0".contains(c)) {
            i += 1;
        }
        size = size.saturating_add(quantity(&mut i, &mut next));
        let mut precision = 0;
        if text.get(i) == Some(&b'.') {
            i += 1;
            precision = quantity(&mut i, &mut next);
        }
        while text.get(i).is_some_and(|c| b"hlL".contains(c)) {
            i += 1;
        }
        // A number's precision pads it; a str's (`%.5s`) only cuts.
        if text.get(i).is_some_and(|c| b"diouxXeEfFgG".contains(c)) {
            size = size.saturating_add(precision);
        }
        if text.get(i).is_some_and(|&c| c != b'%') {
            next += 1;
        }
        i += 1;
    }
    size
}
