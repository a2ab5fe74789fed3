//! What is in scope where the generator writes: one `Frame` per function being
//! written (the module is frame 0), each with the variables that are certainly
//! bound at this point of its code and the functions it can call.
//!
//! Names are never reused (`names.rs`), so Python's scoping rules reduce to
//! three: a variable of an enclosing frame is read freely (bound before the
//! nested function was defined, and never deleted), written only after a
//! `global`/`nonlocal` declaration (recorded in the writing frame, emitted
//! above its body), and a block's new variables leave scope when the block
//! ends (`Mark`): after an `if`, a loop or a `try`, a name bound inside may be
//! unbound, so nothing reads it (unless on purpose, `unbound_read`).

use crate::types::{TTy, Ty};
use std::collections::BTreeSet;

/// A variable certainly bound here.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: Ty,
    /// Loop counters and loop targets the termination argument relies on:
    /// read, never written.
    pub readonly: bool,
}

/// What a callable returns and how it is called.
#[derive(Clone, Debug)]
pub enum CallKind {
    /// `f(int, ...)` returning an int.
    Func,
    /// `f(depth, int)`: the first argument is a small literal bounding the recursion.
    Recursive,
    /// A generator function of int arguments yielding ints: consumed by `list`/`sum`.
    Generator,
    /// A staged function: tensor parameters and result, maybe a Python
    /// hyper-parameter last; `poly`: the types the first parameter takes
    /// (`params[0]` one of them); `counter`: the last tensor parameter is a
    /// recursion depth (`tensor_calls.rs`).
    Staged { params: Vec<TTy>, hyper: bool, result: TTy, poly: Option<Vec<TTy>>, counter: bool },
}

/// A function callable here.
#[derive(Clone, Debug)]
pub struct Callable {
    pub name: String,
    pub arity: usize,
    pub kind: CallKind,
}

/// One function being written (or the module).
#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub vars: Vec<Var>,
    pub callables: Vec<Callable>,
    /// Names this function writes through `global` (emitted at its top).
    pub globals: BTreeSet<String>,
    /// Names this function writes through `nonlocal` (emitted at its top).
    pub nonlocals: BTreeSet<String>,
}

/// How much of the current frame existed before a block: `restore` forgets
/// what the block bound.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    vars: usize,
    callables: usize,
}

/// The frames, module first.
#[derive(Clone, Debug)]
pub struct Scope {
    pub frames: Vec<Frame>,
}

impl Scope {
    pub fn new() -> Self {
        Scope { frames: vec![Frame::default()] }
    }

    pub fn current(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("the module frame is never popped")
    }

    pub fn in_function(&self) -> bool {
        self.frames.len() > 1
    }

    pub fn mark(&self) -> Mark {
        let f = self.frames.last().expect("module frame");
        Mark { vars: f.vars.len(), callables: f.callables.len() }
    }

    pub fn restore(&mut self, m: Mark) {
        let f = self.current();
        f.vars.truncate(m.vars);
        f.callables.truncate(m.callables);
    }

    pub fn bind(&mut self, name: &str, ty: Ty, readonly: bool) {
        self.current().vars.push(Var { name: name.to_string(), ty, readonly });
    }

    pub fn add_callable(&mut self, c: Callable) {
        self.current().callables.push(c);
    }

    /// Every variable of type `ty` readable here, innermost frame last.
    pub fn readable(&self, ty: Ty) -> Vec<&Var> {
        self.frames.iter().flat_map(|f| f.vars.iter()).filter(|v| v.ty == ty).collect()
    }

    /// Variables of this frame of type `ty` that may be written.
    pub fn writable_local(&self, ty: Ty) -> Vec<&Var> {
        let f = self.frames.last().expect("module frame");
        f.vars.iter().filter(|v| v.ty == ty && !v.readonly).collect()
    }

    /// Module variables a function may write after `global` (none at module level).
    pub fn writable_global(&self, ty: Ty) -> Vec<&Var> {
        if !self.in_function() {
            return Vec::new();
        }
        self.frames[0].vars.iter().filter(|v| v.ty == ty && !v.readonly).collect()
    }

    /// Variables of enclosing functions a nested function may write after `nonlocal`.
    pub fn writable_nonlocal(&self, ty: Ty) -> Vec<&Var> {
        let n = self.frames.len();
        if n < 3 {
            return Vec::new();
        }
        self.frames[1..n - 1].iter().flat_map(|f| f.vars.iter()).filter(|v| v.ty == ty && !v.readonly).collect()
    }

    /// Every callable here, from all frames.
    pub fn callables(&self) -> Vec<&Callable> {
        self.frames.iter().flat_map(|f| f.callables.iter()).collect()
    }

    pub fn push_frame(&mut self) {
        self.frames.push(Frame::default());
    }

    pub fn pop_frame(&mut self) -> Frame {
        assert!(self.frames.len() > 1, "the module frame is never popped");
        self.frames.pop().expect("checked")
    }
}

impl Default for Scope {
    fn default() -> Self {
        Scope::new()
    }
}
