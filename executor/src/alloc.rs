//! Per-thread memory accounting in the global allocator.
//!
//! Rust aborts the process when an allocation fails, so a run must never reach
//! the point where the system refuses memory. Every allocation made on a worker
//! thread is counted; when a run's live bytes pass its budget the allocator
//! raises a flag that the watchdog turns into a `MemoryError` at the next
//! bytecode boundary (a catchable Python exception, as in CPython), and past
//! twice the budget into a `diverged (memory limit)` end of the run.
//! Single huge allocations are refused before they happen by the size guards
//! in [`crate::alloc_guards`].
//!
//! Underneath is mimalloc, not glibc's malloc: the transformer and the VM
//! allocate many small objects, and mimalloc makes conversion ~1.5x faster
//! and VM runs ~1.25x faster. Benches get it too, through this crate.

use mimalloc::MiMalloc as System;
use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};

pub const UNDER: u8 = 0;
pub const OVER_SOFT: u8 = 1;
pub const OVER_HARD: u8 = 2;

pub struct BudgetAllocator;

thread_local! {
    /// Bytes allocated minus bytes freed on this thread, since it started.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// Soft and hard thresholds on `LIVE` for the current run (isize::MAX: none).
    static SOFT: Cell<isize> = const { Cell::new(isize::MAX) };
    static HARD: Cell<isize> = const { Cell::new(isize::MAX) };
    /// How much further a run must grow after a `MemoryError` before the next.
    static STEP: Cell<isize> = const { Cell::new(isize::MAX) };
    /// The run's flag, read by its watchdog; null outside runs.
    static FLAG: Cell<*const AtomicU8> = const { Cell::new(std::ptr::null()) };
}

#[inline]
fn track(delta: isize) {
    // `try_with` never fails for const-initialised thread locals without
    // destructors, but an allocator must not panic, so it is used anyway.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        if delta > 0 {
            let soft = SOFT.try_with(Cell::get).unwrap_or(isize::MAX);
            if now > soft {
                let hard = HARD.try_with(Cell::get).unwrap_or(isize::MAX);
                let level = if now > hard { OVER_HARD } else { OVER_SOFT };
                if let Ok(flag) = FLAG.try_with(Cell::get) {
                    if !flag.is_null() {
                        // SAFETY: the pointer is set by `Budget::start` from an Arc
                        // that outlives the run and is cleared by `Budget::stop`.
                        unsafe { (*flag).fetch_max(level, Ordering::Relaxed) };
                    }
                }
            }
        }
    });
}

unsafe impl GlobalAlloc for BudgetAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            track(layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            track(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        track(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            track(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: BudgetAllocator = BudgetAllocator;

/// The memory budget of one run on the current thread.
pub struct Budget;

impl Budget {
    /// Starts counting against `limit` bytes from now; `flag` is raised past it.
    pub fn start(limit: usize, flag: &std::sync::Arc<AtomicU8>) -> Budget {
        flag.store(UNDER, Ordering::Relaxed);
        let base = LIVE.with(Cell::get);
        let limit = limit.min(isize::MAX as usize / 4) as isize;
        SOFT.with(|s| s.set(base.saturating_add(limit)));
        HARD.with(|h| h.set(base.saturating_add(limit.saturating_mul(2))));
        STEP.with(|s| s.set((limit / 8).max(1)));
        FLAG.with(|f| f.set(std::sync::Arc::as_ptr(flag)));
        Budget
    }

    /// Whether the current thread is past twice its budget (the watchdog's
    /// `diverged (memory limit)`), for native code the watchdog cannot reach.
    pub fn over_hard() -> bool {
        LIVE.with(Cell::get) > HARD.with(Cell::get)
    }

    /// A `MemoryError` was raised on the current thread (by the watchdog or
    /// a size guard): the soft limit moves to an eighth of the budget above
    /// what is live now, so the next one comes only after the run has grown
    /// that much. In CPython a MemoryError is one failed allocation, and a
    /// program that catches it may go on; refusing every allocation past the
    /// limit would leave such a program looping on refusals, never reaching
    /// twice its budget (`diverged (memory limit)`), until its time limit.
    pub fn memory_error_raised() {
        let live = LIVE.with(Cell::get);
        let step = STEP.with(Cell::get);
        SOFT.with(|s| s.set(s.get().max(live.saturating_add(step))));
    }

    /// Bytes the current thread may still allocate before the soft limit.
    pub fn remaining() -> usize {
        let live = LIVE.with(Cell::get);
        let soft = SOFT.with(Cell::get);
        soft.saturating_sub(live).max(0) as usize
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        FLAG.with(|f| f.set(std::ptr::null()));
        SOFT.with(|s| s.set(isize::MAX));
        HARD.with(|h| h.set(isize::MAX));
        STEP.with(|s| s.set(isize::MAX));
    }
}
