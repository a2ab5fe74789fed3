//! What the benches share.

use std::time::{Duration, Instant};

/// The fastest of `runs` runs of `f` (the machine may be shared).
pub fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}
