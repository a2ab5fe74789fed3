//! A jailed child's output, read without blocking on it and without being
//! flooded by it: a thread reads the pipe to its end, keeps at most a cap
//! (the first bytes, or the last), and discards the rest, so the child never
//! blocks on a full pipe and this process never holds more than the cap.
//! [`Drain::finish`] waits for the end only so long: a descendant that
//! still holds the pipe (one the group kill missed) cannot hold the caller.

use std::io::Read;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// Which bytes a drain keeps when the output is longer than its cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The first bytes (a reply read whole: longer is a failure).
    First,
    /// The last bytes (stderr, for a dead process's last lines).
    Last,
}

/// What a drain has read.
#[derive(Debug, Default)]
pub struct Drained {
    pub bytes: Vec<u8>,
    /// Bytes read past the cap and dropped.
    pub dropped: u64,
    /// Whether the pipe ended (every writer closed it) before `finish` gave up.
    pub ended: bool,
}

pub struct Drain {
    kept: Arc<Mutex<Drained>>,
    ended: mpsc::Receiver<()>,
}

impl Drain {
    /// Starts reading `pipe` on a thread of its own.
    pub fn spawn(mut pipe: impl Read + Send + 'static, cap: usize, keep: Keep) -> Drain {
        let kept = Arc::new(Mutex::new(Drained::default()));
        let (tx, ended) = mpsc::channel();
        let shared = kept.clone();
        std::thread::spawn(move || {
            let mut chunk = vec![0u8; 64 << 10];
            loop {
                let n = match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let mut d = shared.lock().unwrap();
                d.bytes.extend_from_slice(&chunk[..n]);
                let excess = d.bytes.len().saturating_sub(cap);
                if excess > 0 {
                    match keep {
                        Keep::First => d.bytes.truncate(cap),
                        Keep::Last => drop(d.bytes.drain(..excess)),
                    }
                    d.dropped += excess as u64;
                }
            }
            shared.lock().unwrap().ended = true;
            let _ = tx.send(());
        });
        Drain { kept, ended }
    }

    /// What has been read so far (the drain goes on).
    pub fn snapshot(&self) -> Vec<u8> {
        self.kept.lock().unwrap().bytes.clone()
    }

    /// Waits up to `wait` for the pipe's end, then takes what was read; a
    /// thread still blocked on the pipe is left to end with its last writer.
    pub fn finish(self, wait: Duration) -> Drained {
        let _ = self.ended.recv_timeout(wait);
        std::mem::take(&mut *self.kept.lock().unwrap())
    }
}

/// Blocks SIGPIPE on the calling thread: a write to a child that died
/// fails with EPIPE instead of ending this process (the binary restores
/// SIGPIPE's default, for `| head`).
pub fn no_sigpipe_here() {
    // SAFETY: a signal mask built and installed for this thread alone.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}
