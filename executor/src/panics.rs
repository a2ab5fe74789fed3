//! Panics inside the VM: kept quiet while a run is in progress (they become
//! the run's `crashed` outcome, or end it at a limit), loud everywhere else.

use crate::watchdog::LimitPanic;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    static IN_RUN: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the process's panic hook (once).
pub fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().is::<LimitPanic>() {
                return;
            }
            if IN_RUN.with(Cell::get) {
                let location = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
                let message = format!("{}{location}", payload_text(info.payload()));
                LAST.with(|l| *l.borrow_mut() = Some(message));
                return;
            }
            default(info)
        }));
    });
}

/// Marks the current thread as running a program until dropped.
pub struct RunGuard;

impl RunGuard {
    pub fn enter() -> RunGuard {
        IN_RUN.with(|r| r.set(true));
        LAST.with(|l| l.borrow_mut().take());
        RunGuard
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        IN_RUN.with(|r| r.set(false));
    }
}

/// The message of the panic that just unwound: from the hook, which saw its location.
pub fn last_message(payload: &(dyn Any + Send)) -> String {
    LAST.with(|l| l.borrow_mut().take()).unwrap_or_else(|| payload_text(payload))
}

fn payload_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".into()
    }
}
