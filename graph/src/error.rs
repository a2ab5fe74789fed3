//! Errors of ops and of the executor: a kind the caller maps to a Python
//! exception type, and a message. Nothing in this crate panics on bad input.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What went wrong, coarsely; the Python layer maps it to an exception type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ErrorKind {
    /// Bad shapes, dtypes, axes, indices, attributes or arities (TF's
    /// `InvalidArgumentError`); also an invalid graph handed to the executor.
    InvalidArgument,
    /// Integer `FloorDiv`/`Mod` by zero (and the mean of an empty int tensor).
    /// The crate's own rule: TF raises `InvalidArgumentError` on CPU.
    ZeroDivision,
    /// A combination the crate does not implement.
    Unimplemented,
    /// The executor's call depth limit (recursion through `Call`, `Cond`, `While`).
    RecursionLimit,
    /// The executor's interrupt check said stop (a deadline, a memory budget).
    Interrupted,
    /// A `Raise` node ran: the Python exception its tracer recorded as this
    /// site (the caller re-raises it; the message is for printing).
    Raised(u32),
    /// A `Host` node's callback failed: the caller holds what it raised.
    Host,
    /// Python's `IndexError`: a pop of an empty list (`ListLast`, `ListDrop`).
    Index,
    /// An op on a value whose length is known only at execution (a stacked
    /// list, `Op::DYN`) whose type would depend on that length: not a
    /// program error but a limit of staging (a `StagingError` in Python).
    Dynamic,
}

/// An op or executor error. `Display` gives the message alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpError {
    pub kind: ErrorKind,
    pub message: String,
}

impl OpError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> OpError {
        OpError { kind, message: message.into() }
    }

    pub fn invalid(message: impl Into<String>) -> OpError {
        OpError::new(ErrorKind::InvalidArgument, message)
    }

    pub fn zero_division() -> OpError {
        OpError::new(ErrorKind::ZeroDivision, "integer division by zero")
    }

    pub fn unimplemented(message: impl Into<String>) -> OpError {
        OpError::new(ErrorKind::Unimplemented, message)
    }

    pub fn recursion_limit() -> OpError {
        OpError::new(ErrorKind::RecursionLimit, "maximum recursion depth exceeded")
    }
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OpError {}
