//! What the converter says when it will not convert.

use std::fmt;

/// The converter declined a program: where, which construct, and why.
/// Conversion never produces silently different code; anything it cannot
/// convert faithfully ends here instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionError {
    pub file: String,
    /// 1-based line of the construct in the original source.
    pub line: u32,
    /// The construct, as a short name (`syntax`, `locals()`, `break in finally`, ...).
    pub construct: String,
    pub reason: String,
}

/// The construct of the error that stands for the converter's own panic:
/// not a refusal but a bug of the converter (a finding wherever it appears).
pub const INTERNAL: &str = "internal error";

impl ConversionError {
    /// True when the converter crashed rather than declined.
    pub fn is_internal(&self) -> bool {
        self.construct == INTERNAL
    }
}

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ConversionError: {}: {}", self.file, self.line, self.construct, self.reason)
    }
}

impl std::error::Error for ConversionError {}

/// A refusal found inside a pass, before it knows the file and line table.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub offset: ruff_text_size::TextSize,
    pub construct: &'static str,
    pub reason: String,
}

impl Refusal {
    pub fn new(at: impl ruff_text_size::Ranged, construct: &'static str, reason: impl Into<String>) -> Refusal {
        Refusal { offset: at.start(), construct, reason: reason.into() }
    }
}
