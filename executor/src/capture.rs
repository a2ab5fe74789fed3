//! Per-run capture of what a program prints: `sys.stdout` and `sys.stderr`
//! are the native module `_stagecheck_io`, whose `write` appends to a buffer
//! of the worker thread, never to the process's own streams.

use std::cell::RefCell;

thread_local! {
    static BUFFER: RefCell<Capture> = const { RefCell::new(Capture::new()) };
}

struct Capture {
    text: String,
    limit: usize,
    truncated: bool,
}

impl Capture {
    const fn new() -> Self {
        Capture { text: String::new(), limit: usize::MAX, truncated: false }
    }
}

/// Starts a fresh capture of at most `limit` bytes on this thread.
pub fn start(limit: usize) {
    BUFFER.with(|b| *b.borrow_mut() = Capture { text: String::new(), limit, truncated: false });
}

/// Ends the capture: the text and whether it was cut at the limit.
pub fn take() -> (String, bool) {
    BUFFER.with(|b| {
        let c = std::mem::replace(&mut *b.borrow_mut(), Capture::new());
        (c.text, c.truncated)
    })
}

fn push(s: &str) {
    BUFFER.with(|b| {
        let mut c = b.borrow_mut();
        let room = c.limit.saturating_sub(c.text.len());
        if s.len() <= room {
            c.text.push_str(s);
        } else {
            let mut cut = room;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            c.text.push_str(&s[..cut]);
            c.truncated = true;
        }
    });
}

#[rustpython_vm::pymodule]
pub(crate) mod _stagecheck_io {
    use rustpython_vm::builtins::PyStrRef;

    /// `file.write(s)`: appends to the run's capture, returns the characters written.
    #[pyfunction]
    fn write(s: PyStrRef) -> usize {
        let text = s.to_string_lossy();
        super::push(&text);
        text.chars().count()
    }

    #[pyfunction]
    fn flush() {}
}
