//! The OS confinement of worker processes (src/worker/confine.rs), the wall
//! behind the VM's sandbox: native code inside a worker
//! (`__stagecheck_os_probe__`, exposed with `Config::debug_os_probe`), as a
//! program that got out of the VM would be, tries to run a command, read a
//! host file, create one, connect, signal its parent, reserve address space
//! and hold descriptors. Each layer is tested alone (the others turned off
//! with `STAGECHECK_NO_CONFINE`), all together, and none (the probes then
//! succeed: the test can fail). A layer this kernel lacks is said, and the
//! others are still checked; seccomp or Landlock must be there.

use stagecheck::executor::{Config, Terminal};
use stagecheck::modes::Mode;
use stagecheck::worker::{confine::OFF_VAR, Worker};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// Workers inherit this process's environment when they start, and tests
/// run on threads: every test holds this while it has workers.
static ENV: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    ENV.lock().unwrap_or_else(|p| p.into_inner())
}

/// A worker with the probe, `off` the value of `STAGECHECK_NO_CONFINE`.
fn worker(_held: &MutexGuard<'static, ()>, off: Option<&str>) -> Worker {
    // SAFETY (edition 2021: safe): other threads start no process meanwhile (`ENV`).
    match off {
        Some(v) => std::env::set_var(OFF_VAR, v),
        None => std::env::remove_var(OFF_VAR),
    }
    let w = Worker::new(Config { debug_os_probe: true, ..Config::default() });
    std::env::remove_var(OFF_VAR);
    w
}

/// What one probe got: `ok: ...` or `error N: ...`.
fn probe(w: &mut Worker, what: &str, arg: &str) -> String {
    let program = format!("print(__stagecheck_os_probe__({what:?}, {arg:?}))\n");
    let outcome = w.run(&program, "probe.py").expect("compiles");
    assert_eq!(outcome.terminal, Terminal::Completed, "probe {what}: {}", outcome.stdout);
    let result = outcome.stdout.trim_end().to_string();
    eprintln!("  {what}: {result}");
    result
}

/// The OS error a probe got, None when it succeeded.
fn errno(result: &str) -> Option<i32> {
    let rest = result.strip_prefix("error ")?;
    rest.split(':').next()?.parse().ok()
}

/// What the probes reach: a secret file, a directory to create in, a port.
struct Host {
    dir: PathBuf,
    secret: PathBuf,
    listener: TcpListener,
}

const SECRET: &str = "the host's secret\n";

impl Host {
    fn new(name: &str) -> Host {
        let dir = std::env::temp_dir().join(format!("stagecheck-confine-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let secret = dir.join("secret");
        std::fs::write(&secret, SECRET).unwrap();
        Host { dir, secret, listener: TcpListener::bind("127.0.0.1:0").unwrap() }
    }

    /// Each probe and its result, in one worker.
    fn probes(&self, w: &mut Worker) -> Vec<(&'static str, String)> {
        let address = self.listener.local_addr().unwrap().to_string();
        let created = self.dir.join("created");
        let _ = std::fs::remove_file(&created);
        vec![
            ("exec", probe(w, "exec", "/bin/true")),
            ("read", probe(w, "read", self.secret.to_str().unwrap())),
            ("create", probe(w, "create", created.to_str().unwrap())),
            ("connect", probe(w, "connect", &address)),
            ("signal_parent", probe(w, "signal_parent", "")),
            ("reserve", probe(w, "reserve", "64")),
            ("descriptors", probe(w, "descriptors", "100")),
        ]
    }

    fn created(&self) -> bool {
        self.dir.join("created").exists()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What confines `w`, as its `Ready` said.
fn summary(w: &Worker) -> String {
    w.confinement().expect("a worker process says what confines it").summary.clone()
}

/// Asserts each probe got one of `expected` errors, or succeeded where
/// `expected` is empty.
fn check(results: &[(&str, String)], expected: &[(&str, &[i32])], summary: &str) {
    for (what, codes) in expected {
        let (_, result) = results.iter().find(|(w, _)| w == what).expect("probed");
        match errno(result) {
            Some(code) => assert!(codes.contains(&code), "{what}: {result}, not an error in {codes:?} ({summary})"),
            None => assert!(codes.is_empty(), "{what} succeeded: {result} ({summary})"),
        }
    }
}

const EPERM: i32 = 1;
const EACCES: i32 = 13;
const ENOMEM: i32 = 12;
const EMFILE: i32 = 24;
const OK: &[i32] = &[];

#[test]
fn without_confinement_every_probe_succeeds() {
    let held = lock();
    let host = Host::new("none");
    let mut w = worker(&held, Some("1"));
    assert!(summary(&w).contains(&format!("off ({OFF_VAR})")), "{}", summary(&w));
    let results = host.probes(&mut w);
    let all_ok: Vec<(&str, &[i32])> = results.iter().map(|(what, _)| (*what, OK)).collect();
    check(&results, &all_ok, &summary(&w));
    let read = &results.iter().find(|(w, _)| *w == "read").unwrap().1;
    assert_eq!(read, &format!("ok: {SECRET}").trim_end(), "the secret reached the program unconfined");
    assert!(host.created(), "the file was created unconfined");
}

/// A worker with `layer` alone, what it reaches and what confines it; None
/// (and said) where this kernel lacks the layer.
fn alone(held: &MutexGuard<'static, ()>, layer: &str, others: &str, applied: &str) -> Option<(Host, Worker, String)> {
    let host = Host::new(layer);
    let w = worker(held, Some(others));
    let summary = summary(&w);
    if summary.contains(&format!("{layer} unavailable")) {
        eprintln!("NOT CHECKED: {layer} is not available here: {summary}");
        return None;
    }
    assert!(summary.starts_with("rlimits off") && summary.contains(applied), "{summary}");
    Some((host, w, summary))
}

/// Adds what Landlock refuses besides files and commands, as far as this
/// kernel's Landlock does (or `always`), and says what it cannot check.
fn sockets_and_signals<'a>(summary: &str, always: bool, refused: &'a [i32], expected: &mut Vec<(&str, &'a [i32])>) {
    for (what, feature) in [("connect", "no TCP"), ("signal_parent", "no signals out")] {
        if always || summary.contains(feature) {
            expected.push((what, refused));
        } else {
            eprintln!("NOT CHECKED: {what}: this kernel's Landlock has no {feature:?} ({summary})");
        }
    }
}

#[test]
fn seccomp_alone_refuses_commands_files_sockets_and_signals() {
    let held = lock();
    let Some((host, mut w, summary)) = alone(&held, "seccomp", "landlock,rlimits", "seccomp: an allow-list") else { return };
    let results = host.probes(&mut w);
    let refused: &[i32] = &[EPERM];
    check(
        &results,
        &[
            ("exec", refused),
            ("read", refused),
            ("create", refused),
            ("connect", refused),
            ("signal_parent", refused),
            ("reserve", OK),
            ("descriptors", OK),
        ],
        &summary,
    );
    assert!(!host.created());
}

#[test]
fn landlock_alone_refuses_commands_files_and_as_its_abi_allows_sockets_and_signals() {
    let held = lock();
    let Some((host, mut w, summary)) = alone(&held, "landlock", "seccomp,rlimits", "landlock ABI") else { return };
    let results = host.probes(&mut w);
    let refused: &[i32] = &[EACCES, EPERM];
    let mut expected = vec![("exec", refused), ("read", refused), ("create", refused), ("reserve", OK), ("descriptors", OK)];
    sockets_and_signals(&summary, false, refused, &mut expected);
    check(&results, &expected, &summary);
    assert!(!host.created());
}

#[test]
fn rlimits_alone_bound_address_space_and_descriptors() {
    let held = lock();
    let host = Host::new("rlimits");
    let mut w = worker(&held, Some("landlock,seccomp"));
    let summary = summary(&w);
    assert!(summary.starts_with("rlimits: address space"), "{summary}");
    let results = host.probes(&mut w);
    check(&results, &[("reserve", &[ENOMEM]), ("descriptors", &[EMFILE]), ("read", OK)], &summary);
}

#[test]
fn with_every_layer_every_probe_is_refused_and_the_worker_lives_on() {
    let held = lock();
    let host = Host::new("all");
    let mut w = worker(&held, None);
    let summary = summary(&w);
    let seccomp = !summary.contains("seccomp unavailable");
    let landlock = !summary.contains("landlock unavailable");
    assert!(seccomp || landlock, "neither seccomp nor Landlock confines workers here: {summary}");
    let pid = w.pid();
    let results = host.probes(&mut w);
    let refused: &[i32] = &[EPERM, EACCES];
    let mut expected =
        vec![("exec", refused), ("read", refused), ("create", refused), ("reserve", &[ENOMEM][..]), ("descriptors", &[EMFILE][..])];
    sockets_and_signals(&summary, seccomp, refused, &mut expected);
    check(&results, &expected, &summary);
    assert!(!host.created());
    assert_eq!(w.pid(), pid, "the same worker served every probe");
    let next = w.run("x = sum(range(10))\nprint(x)\n", "next.py").expect("compiles");
    assert_eq!((next.terminal, next.stdout.as_str()), (Terminal::Completed, "45\n"));
    assert_eq!(w.pid(), pid, "and serves the next run");
}

#[test]
fn staged_gpu_runs_get_a_worker_that_opened_the_gpu_before_confinement() {
    if let Err(why) = stagecheck_gpu::Gpu::available() {
        eprintln!("NOT CHECKED: no Vulkan adapter: {why}");
        return;
    }
    let held = lock();
    let mut w = worker(&held, None);
    let program = "import stagecheck as sc\n\n@sc.function\ndef f(x):\n    return sc.exp(x) * 2.0\n\nprint(f(sc.constant([0.5, 1.5])))\n";
    let original = w.run(program, "gpu.py").expect("compiles");
    assert_eq!(original.terminal, Terminal::Completed, "{}", original.stdout);
    let first = w.pid();
    for round in 0..2 {
        let staged = w.run_in(program, "gpu.py", Mode::StagedGpu).expect("compiles");
        assert_eq!(staged.terminal, Terminal::Completed, "{}", staged.stdout);
        assert!(staged.tolerance.is_some(), "round {round}: the graph did not run on the GPU ({})", summary(&w));
    }
    assert_ne!(w.pid(), first, "the worker confined without the GPU was replaced");
    let again = w.run(program, "gpu.py").expect("compiles");
    assert_eq!(again.stdout, original.stdout);
    // A vendor driver's device nodes are all a GPU worker may open again
    // (none for lavapipe): a host file stays out of its reach.
    let (host, gpu_worker) = (Host::new("gpu"), w.pid());
    let created = host.dir.join("created");
    for (what, arg) in [("read", host.secret.to_str().unwrap()), ("create", created.to_str().unwrap())] {
        let result = probe(&mut w, what, arg);
        assert!(errno(&result).is_some(), "{what} in a GPU worker: {result} ({})", summary(&w));
    }
    assert!(!host.created());
    assert_eq!(w.pid(), gpu_worker, "the probes ran in the GPU worker");
}
