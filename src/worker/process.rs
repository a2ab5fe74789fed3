//! The parent's side of a worker process: spawn, send a run, wait for its
//! reply within the run's limit, and when the process dies or sits in native
//! code past its limit, kill it, say how it ended and start another. Nothing
//! a program does reaches this process.
//!
//! One socket pair carries both directions (the worker's stdin and stdout):
//! writes use `MSG_NOSIGNAL`, so a dead worker is an error here, never a
//! SIGPIPE (the CLI keeps SIGPIPE's default for `| head`), and reads take a
//! timeout. The worker's stderr is kept (its last 4 KiB) for crash messages.
//!
//! A worker confines itself before its first run (`confine.rs`), so it opens
//! the GPU then or never: the first `staged-gpu` run of a worker started
//! without it (or `staged` run of a program calling `sc.device`) replaces
//! that worker by one that opens it, and every worker started after does too.
//! Its `Ready` says what confines it ([`Process::confinement`]); a layer the
//! kernel lacks is said once, on this
//! process's stderr. Besides its resident set, the parent watches a worker's
//! CPU time: past `confine::CPU_RECYCLE` it is replaced between runs, long
//! before its `RLIMIT_CPU` would end it in one.

use super::confine::{Confinement, CPU_RECYCLE};
use super::protocol::{encode, frame_len, Reply, Request};
use crate::executor::{worker::GRACE, Config, Limit, Outcome, Phases, SyntaxError, Terminal};
use crate::jail::pipes::{Drain, Keep};
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Once;
use std::time::{Duration, Instant};

/// Bytes of a worker's stderr kept for its crash message.
const STDERR_KEPT: usize = 4096;
/// How long a worker may take to build its interpreter.
const STARTUP: Duration = Duration::from_secs(120);
/// Growth of a worker's resident set, over what it held when it was ready,
/// past which it is replaced between runs (RustPython never frees reference
/// cycles; a replaced worker gives the same results). Tensor programs grow
/// a worker by ~0.7 MB a run: at 32 MiB a tensor fuzz run replaced its
/// worker every ~45 runs (13 times in 15 s), each replacement starting cold;
/// at 256 MiB twice, and the run checked 20% more programs (seeds 6 and 7:
/// 23.7 and 23.3 -> 28.6 and 28.0 checks/s).
pub const RECYCLE_GROWTH: u64 = 256 << 20;
/// Runs between two looks at a worker's resident set and CPU time.
pub(crate) const LOOK_EVERY: u64 = 8;

pub struct Process {
    config: Config,
    exe: PathBuf,
    live: Option<Live>,
    /// Whether workers open the GPU before confinement (since the first
    /// `staged-gpu` run).
    gpu: bool,
    /// Workers started so far (the first included).
    pub started: u64,
    /// No wait outlasts it ([`super::Worker::set_deadline`]).
    pub deadline: Option<Instant>,
}

/// A running worker process of any kind (this binary's `__worker`, or a
/// target's worker, `crate::targets`): the socket pair that is its stdin and
/// stdout, framed messages with a deadline, the last of its stderr.
pub(crate) struct Live {
    child: Child,
    socket: UnixStream,
    buffer: Vec<u8>,
    /// Where each read from the socket lands (one allocation per worker,
    /// not one per reply).
    chunk: Box<[u8]>,
    stderr: Drain,
    pub(crate) runs: u64,
    baseline_rss: u64,
    confinement: Confinement,
}

/// Why no reply came.
pub(crate) enum Stop {
    Timeout,
    Dead(String),
}

impl Process {
    /// Starts a worker (waiting until its interpreter is built: a broken
    /// runtime fails here, loudly, not as a crashed run).
    pub fn new(config: Config, exe: PathBuf) -> Process {
        let mut process = Process { config, exe, live: None, gpu: false, started: 0, deadline: None };
        if let Err(why) = process.start() {
            panic!("the worker process could not start: {why}");
        }
        process
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The worker's process id, while one is running (tests kill it).
    pub fn pid(&self) -> Option<u32> {
        self.live.as_ref().map(|l| l.child.id())
    }

    /// What confines the running worker (None between workers).
    pub fn confinement(&self) -> Option<&Confinement> {
        self.live.as_ref().map(|l| &l.confinement)
    }

    fn start(&mut self) -> Result<(), String> {
        let mut command = Command::new(&self.exe);
        command.envs(mesa_cache_env()).envs(allocator_env()).arg(super::SUBCOMMAND);
        let mut live = Live::spawn(&mut command).map_err(|e| format!("{}: {e}", self.exe.display()))?;
        self.started += 1;
        let hello = Request::Hello { config: self.config.clone(), gpu: self.gpu };
        let ready = live.send(&hello).and_then(|()| live.receive(no_later(Instant::now() + STARTUP, self.deadline)));
        match ready {
            Ok(Reply::Ready { confinement }) => {
                if !confinement.lacking.is_empty() {
                    static SAID: Once = Once::new();
                    SAID.call_once(|| {
                        eprintln!("stagecheck: workers run without {}", confinement.lacking.join("; without "));
                    });
                }
                live.confinement = confinement;
                live.baseline_rss = live.rss();
                self.live = Some(live);
                Ok(())
            }
            Ok(_) => Err("the worker answered Hello with something other than Ready".into()),
            Err(Stop::Timeout) => Err(live.end("did not get ready in time".into())),
            Err(Stop::Dead(why)) => Err(live.end(why)),
        }
    }

    /// Runs one program in `mode`; a worker that dies or overruns is
    /// replaced, and the run's outcome says what happened to it.
    pub fn run_in(&mut self, source: &str, path: &str, mode: crate::staging::Mode) -> (Result<Outcome, SyntaxError>, Phases) {
        let clock = Instant::now();
        // A staged run of a program that places graphs with `sc.device`
        // needs the GPU as much as a `staged-gpu` run: without it the
        // program's `with sc.device('gpu')` would run on the GPU or not
        // depending on which runs this worker served before (a fuzz --gpu
        // finding that `check` could not replay).
        let wants_gpu = mode == crate::staging::Mode::StagedGpu || (mode == crate::staging::Mode::Staged && source.contains("device("));
        if wants_gpu && !self.gpu {
            // This worker is confined without the GPU: its successors open it.
            self.gpu = true;
            self.retire();
        }
        if self.live.is_none() {
            if let Err(why) = self.start() {
                return (
                    Ok(lost(Terminal::Crashed { message: format!("the worker process could not start: {why}") }, clock)),
                    Phases::default(),
                );
            }
        }
        let live = self.live.as_mut().expect("started above");
        let request = Request::Run { source: source.to_owned(), path: path.to_owned(), mode };
        let answer = live.send(&request).and_then(|()| live.receive(no_later(clock + self.config.time_limit + GRACE, self.deadline)));
        match answer {
            Ok(Reply::Ran { reply, mut phases }) => {
                phases.hop = clock.elapsed().saturating_sub(phases.total());
                live.runs += 1;
                if live.runs.is_multiple_of(LOOK_EVERY) && (live.rss() > live.baseline_rss + RECYCLE_GROWTH || live.cpu() > CPU_RECYCLE) {
                    self.retire();
                }
                (reply, phases)
            }
            Ok(Reply::Ready { .. }) => {
                let message = self.retire_with("the worker answered a run with Ready".into());
                (Ok(lost(Terminal::Crashed { message }, clock)), Phases::default())
            }
            Err(Stop::Timeout) => {
                self.retire();
                (Ok(lost(Terminal::Diverged { limit: Limit::TimeInNative }, clock)), Phases::default())
            }
            Err(Stop::Dead(why)) => {
                let message = self.retire_with(why);
                (Ok(lost(Terminal::Crashed { message }, clock)), Phases::default())
            }
        }
    }

    /// Ends the current worker; the next run starts another.
    fn retire(&mut self) {
        if let Some(live) = self.live.take() {
            live.end(String::new());
        }
    }

    fn retire_with(&mut self, why: String) -> String {
        self.live.take().map(|l| l.end(why.clone())).unwrap_or(why)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.retire();
    }
}

/// The environment a worker gets for Mesa's shader cache (lavapipe keeps
/// compiled kernels there; without it each new worker compiles every kernel
/// again, `fuzz --gpu` 3x slower). A confined worker opens no file, so the
/// cache must be one Mesa opens when the GPU is: its single-file cache
/// (appended through descriptors opened then), in stagecheck's own
/// directory, which only workers share (a program that got out of one could
/// write bad kernels there for the others, no further). What the user set
/// stays.
fn mesa_cache_env() -> Vec<(&'static str, std::ffi::OsString)> {
    let set = |name: &str| std::env::var_os(name).is_some();
    let mut env = Vec::new();
    if !set("MESA_DISK_CACHE_SINGLE_FILE") && !set("MESA_DISK_CACHE_MULTI_FILE") && !set("MESA_DISK_CACHE_DATABASE") {
        env.push(("MESA_DISK_CACHE_SINGLE_FILE", "1".into()));
    }
    let home = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let cache_home = home("XDG_CACHE_HOME").or_else(|| home("HOME").map(|h| h.join(".cache")));
    if let (false, Some(cache_home)) = (set("MESA_SHADER_CACHE_DIR"), cache_home) {
        env.push(("MESA_SHADER_CACHE_DIR", cache_home.join("stagecheck").join("mesa").into_os_string()));
    }
    env
}

/// The environment a worker gets for its allocator: mimalloc returns freed
/// memory to the system 10 ms after it is freed, and a worker frees a run's
/// whole heap at its end, so the next run faulted it in again, zeroed page by
/// page (a staged tensor run spent ~10% of its time there; 14,100 page faults
/// in 40 programs, 7,700 without purging). A worker keeps what it freed for
/// the next run: budgets count live bytes, not resident ones (alloc.rs), and
/// workers are recycled. What the user set stays.
fn allocator_env() -> Vec<(&'static str, std::ffi::OsString)> {
    match std::env::var_os("MIMALLOC_PURGE_DELAY") {
        Some(_) => Vec::new(),
        None => vec![("MIMALLOC_PURGE_DELAY", "-1".into())],
    }
}

/// `at`, or `deadline` where it comes first: a worker's caller may have a
/// budget of its own ([`super::Worker::set_deadline`]).
pub(crate) fn no_later(at: Instant, deadline: Option<Instant>) -> Instant {
    deadline.map_or(at, |d| at.min(d))
}

/// The outcome of a run whose worker was lost, with the real time it took.
fn lost(terminal: Terminal, clock: Instant) -> Outcome {
    Outcome::lost(terminal, clock.elapsed().as_micros() as u64)
}

impl Live {
    /// Starts `command` with one end of a socket pair as its stdin and
    /// stdout, its stderr kept (the last [`STDERR_KEPT`] bytes).
    pub(crate) fn spawn(command: &mut Command) -> Result<Live, String> {
        let (ours, theirs) = UnixStream::pair().map_err(|e| format!("socketpair: {e}"))?;
        let theirs = OwnedFd::from(theirs);
        let mut child = command
            .stdin(Stdio::from(theirs.try_clone().map_err(|e| e.to_string())?))
            .stdout(Stdio::from(theirs))
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        // The command holds this side's copy of the worker's end until it is
        // dropped: closed now, so a worker that dies is an end of stream here.
        command.stdin(Stdio::null()).stdout(Stdio::null());
        let stderr = Drain::spawn(child.stderr.take().expect("piped stderr"), STDERR_KEPT, Keep::Last);
        Ok(Live {
            child,
            socket: ours,
            buffer: Vec::new(),
            chunk: vec![0u8; 64 << 10].into_boxed_slice(),
            stderr,
            runs: 0,
            baseline_rss: 0,
            confinement: Confinement::default(),
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn send(&mut self, request: &impl serde::Serialize) -> Result<(), Stop> {
        let frame = encode(request).map_err(|e| Stop::Dead(e.to_string()))?;
        let mut sent = 0;
        while sent < frame.len() {
            let rest = &frame[sent..];
            // SAFETY: a valid socket and buffer; MSG_NOSIGNAL turns a dead
            // peer into EPIPE instead of a SIGPIPE that would end this process.
            let n = unsafe { libc::send(self.socket.as_raw_fd(), rest.as_ptr().cast(), rest.len(), libc::MSG_NOSIGNAL) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Stop::Dead(format!("sending to the worker: {e}")));
            }
            sent += n as usize;
        }
        Ok(())
    }

    pub(crate) fn receive<R: serde::de::DeserializeOwned>(&mut self, deadline: Instant) -> Result<R, Stop> {
        self.fill(4, deadline)?;
        let len = frame_len(self.buffer[..4].try_into().unwrap()).map_err(|e| Stop::Dead(e.to_string()))?;
        self.fill(4 + len, deadline)?;
        let reply =
            super::protocol::from_slice_deep(&self.buffer[4..4 + len]).map_err(|e| Stop::Dead(format!("a reply that does not parse: {e}")));
        self.buffer.drain(..4 + len);
        reply
    }

    fn fill(&mut self, want: usize, deadline: Instant) -> Result<(), Stop> {
        while self.buffer.len() < want {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Stop::Timeout);
            }
            self.socket.set_read_timeout(Some(left)).map_err(|e| Stop::Dead(e.to_string()))?;
            match self.socket.read(&mut self.chunk) {
                Ok(0) => return Err(Stop::Dead("the worker closed its output".into())),
                Ok(n) => self.buffer.extend_from_slice(&self.chunk[..n]),
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted) => {}
                Err(e) => return Err(Stop::Dead(format!("reading from the worker: {e}"))),
            }
        }
        Ok(())
    }

    /// Whether the worker has closed its end of the socket (nothing left to read).
    fn closed(&self) -> bool {
        let mut byte = 0u8;
        // SAFETY: a one-byte peek into a valid buffer, without blocking.
        let n = unsafe { libc::recv(self.socket.as_raw_fd(), (&mut byte as *mut u8).cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT) };
        n == 0
    }

    /// The worker's resident set in bytes (Linux), 0 where unknown.
    fn rss(&self) -> u64 {
        let statm = std::fs::read_to_string(format!("/proc/{}/statm", self.child.id())).unwrap_or_default();
        let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
        // SAFETY: sysconf has no preconditions.
        pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(0) as u64
    }

    /// The CPU time the worker has used (Linux; zero where unknown).
    fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // After the command name (in parentheses, which may hold spaces):
        // state is field 3, utime and stime fields 14 and 15, in clock ticks.
        let fields: Vec<&str> = stat.rsplit_once(')').map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
        let ticks: u64 = fields.get(11..13).map_or(0, |f| f.iter().filter_map(|t| t.parse::<u64>().ok()).sum());
        // SAFETY: sysconf has no preconditions.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        Duration::from_millis(ticks * 1000 / per_second)
    }

    /// Kills the worker (if it still lives), reaps it, and says how it ended:
    /// `why`, its exit status or signal, and the last lines of its stderr.
    pub(crate) fn end(mut self, why: String) -> String {
        // A worker that closed its end is ending on its own (a jailed one
        // through its launcher, a moment later): its own status is the one to tell.
        if self.closed() {
            let until = Instant::now() + Duration::from_millis(200);
            while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        // A jailed worker leads a process group: all it started goes too,
        // and with them every holder of its stderr.
        crate::jail::kill_group(self.child.id());
        let _ = self.child.kill();
        let status = self.child.wait();
        let stderr = self.stderr.finish(Duration::from_millis(500)).bytes;
        let status = match status {
            Ok(s) => match (s.code(), s.signal()) {
                (_, Some(sig)) => format!("was killed by {}", signal_name(sig)),
                (Some(code), _) => format!("exited with status {code}"),
                _ => "ended".to_string(),
            },
            Err(e) => format!("could not be reaped: {e}"),
        };
        let stderr = without_thread_ids(&String::from_utf8_lossy(&stderr));
        let tail: Vec<&str> = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let tail = tail[tail.len().saturating_sub(3)..].join("; ");
        let mut message = format!("the worker process {status}");
        if !tail.is_empty() {
            message.push_str(": ");
            message.push_str(&tail);
        }
        if !why.is_empty() && tail.is_empty() {
            message.push_str(&format!(" ({why})"));
        }
        message
    }
}

/// Rust's messages name a thread with its id (`thread 'w' (12534) has
/// overflowed its stack`), which differs from run to run: dropped, so that
/// the same crash reads the same.
fn without_thread_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("' (") {
        let after = &rest[at + 3..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str(&rest[..at + 1]);
            rest = &after[digits + 1..];
        } else {
            out.push_str(&rest[..at + 3]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn thread_ids_are_dropped_from_crash_messages() {
        assert_eq!(
            super::without_thread_ids("thread 'stagecheck-worker' (12534) has overflowed its stack; f('a' (b))"),
            "thread 'stagecheck-worker' has overflowed its stack; f('a' (b))"
        );
    }
}
