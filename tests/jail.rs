//! The jail (`src/jail/`) against the red team's attacks, each run in
//! every kind of process that runs a program outside the VM: the CPython
//! oracle's run (an interpreter, no processes), a built-in target's fork
//! server (`autograph`: TensorFlow's interpreter, whose children may not
//! fork) and a third party's executable (a shell script starting python3,
//! which may start processes). A program reaches the real `os` through the
//! kit's importer's `__globals__`, as an attacker would, and tries: a UNIX
//! socket file and a UDP port the test listens on, a raw socket, a device
//! node, a file outside the jail, the host's environment and other
//! processes' `/proc`. Then the walls that bound time and memory: a child
//! holding the output pipes, a flood of output, and state left for the
//! next program.

mod common;

use stagecheck::check::check;
use stagecheck::executor::{Config, Outcome, Terminal};
use stagecheck::modes::{Mode, ModeRun};
use stagecheck::oracles::convergence::Verdict;
use stagecheck::oracles::cpython::{CpythonRun, Python};
use stagecheck::targets::Target;
use stagecheck::worker::Worker;
use std::os::unix::net::{UnixDatagram, UnixListener};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The value of a variable only the test's own process holds.
const SECRET: &str = "planted-5ecret-73c1";

/// Each kind of jailed process, by name.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Oracle,
    Builtin,
    ThirdParty,
}

const KINDS: [Kind; 3] = [Kind::Oracle, Kind::Builtin, Kind::ThirdParty];

/// A third party's target that runs programs as written in both modes.
const PLAIN: &str = r#"
def run(request, limits):
    code, uncompilable = compile_program(request["source"], request["path"])
    if uncompilable:
        return uncompilable
    needs_native = []
    return run_code(code, request["path"], int(limits.get("stdout_limit", 1 << 20)), sandbox_builtins(needs_native), needs_native)
serve({"name": "plain", "version": "plain 1", "modes": ["original", "unstaged"]}, run)
"#;

fn plain_target() -> Target {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    let path = PATH.get_or_init(|| common::third_party_target("jail", "plain", PLAIN));
    Target::resolve(&path.display().to_string()).expect("the plain target starts")
}

/// The autograph target, with the venv `scripts/target-venv` makes.
fn autograph() -> Target {
    static READY: OnceLock<()> = OnceLock::new();
    READY.get_or_init(|| stagecheck::targets::install_venv("autograph").expect("scripts/target-venv makes the TensorFlow venv"));
    Target::resolve("autograph").expect("the autograph target")
}

fn config(time_limit: Duration) -> Config {
    Config { time_limit, ..Config::default() }
}

/// `source`'s outcome in `kind`'s jailed process.
fn run_in(kind: Kind, source: &str, path: &str, time_limit: Duration) -> Outcome {
    std::env::set_var("STAGECHECK_JAIL_TEST_SECRET", SECRET);
    let target = match kind {
        Kind::Oracle => {
            let python = Python::find().expect("python3 for the oracle");
            return match python.run(source, path, &config(time_limit)) {
                CpythonRun::Ran { outcome } => outcome,
                other => panic!("the oracle's run gave no outcome: {other:?}"),
            };
        }
        Kind::Builtin => autograph(),
        Kind::ThirdParty => plain_target(),
    };
    let mut worker = Worker::for_target(&target, config(time_limit)).expect("the target's worker");
    match worker.run_target(source, path, Mode::Original).0 {
        ModeRun::Ran { outcome } => outcome,
        other => panic!("{kind:?}: {other:?}"),
    }
}

/// The attacker's preamble: the real `os` and importer.
const ESCAPE: &str = "imp = __import__.__globals__['builtins'].__import__\nos = imp('os')\nsocket = imp('socket')\nio = imp('io')\n";

/// Each attempt's result (`ok` or the exception's class), then everything
/// read of environments and other processes' `/proc`.
const ATTACK: &str = r#"r = {}
def t(name, f):
    try:
        f()
        r[name] = 'ok'
    except BaseException as e:
        r[name] = type(e).__name__
t('unix', lambda: socket.socket(socket.AF_UNIX).connect(@UNIX@))
t('unix_dgram', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b'x', @DGRAM@))
t('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', @PORT@)))
t('raw', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, 1))
t('mknod', lambda: os.mknod(os.environ.get('TMPDIR', '/tmp') + '/disk', 0o600 | 0o60000, os.makedev(8, 0)))
t('marker', lambda: io.open(@MARKER@, 'w').write('x'))
t('passwd', lambda: io.open('/etc/passwd').read())
seen = [repr(dict(os.environ))]
for pid in [p for p in os.listdir('/proc') if p.isdigit()] + [str(os.getppid())]:
    for f in ('environ', 'cmdline', 'maps'):
        try:
            seen.append(io.open('/proc/' + pid + '/' + f, 'rb').read().decode('latin-1'))
        except BaseException:
            pass
caps = [l for l in io.open('/proc/self/status').read().splitlines() if l.startswith(('CapEff', 'CapPrm', 'CapBnd', 'NoNewPrivs'))]
print('CAPS', caps)
print('ATTACK', sorted(r.items()))
print('SEEN', ' '.join(seen))
"#;

#[test]
fn no_socket_device_node_host_file_or_host_secret_in_any_jail() {
    for kind in KINDS {
        let dir = std::env::temp_dir().join(format!("stagecheck-jail-{}-{kind:?}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let unix_path = dir.join("listener.sock");
        let unix = UnixListener::bind(&unix_path).expect("a UNIX socket to attack");
        unix.set_nonblocking(true).unwrap();
        let unix_dgram_path = dir.join("dgram.sock");
        let unix_dgram = UnixDatagram::bind(&unix_dgram_path).unwrap();
        unix_dgram.set_nonblocking(true).unwrap();
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        let port = udp.local_addr().unwrap().port();
        let marker = dir.join("marker");
        let source = format!("{ESCAPE}{ATTACK}")
            .replace("@UNIX@", &format!("{:?}", unix_path.display().to_string()))
            .replace("@DGRAM@", &format!("{:?}", unix_dgram_path.display().to_string()))
            .replace("@PORT@", &port.to_string())
            .replace("@MARKER@", &format!("{:?}", marker.display().to_string()));
        let outcome = run_in(kind, &source, "attack.py", Duration::from_secs(60));
        let stdout = &outcome.stdout;
        assert!(stdout.contains("ATTACK"), "{kind:?}: the attack ran: {:?} {stdout}", outcome.terminal);
        for name in ["unix", "unix_dgram", "udp", "raw", "mknod", "marker", "passwd"] {
            assert!(!stdout.contains(&format!("('{name}', 'ok')")), "{kind:?}: {name} got through: {stdout}");
        }
        assert!(!stdout.contains(SECRET), "{kind:?}: the host's environment leaked");
        for field in ["CapEff", "CapPrm", "CapBnd"] {
            assert!(stdout.contains(&format!("'{field}:\\t0000000000000000'")), "{kind:?}: {field} not empty: {stdout}");
        }
        assert!(stdout.contains("'NoNewPrivs:\\t1'"), "{kind:?}: no_new_privs: {stdout}");
        assert!(unix.accept().is_err(), "{kind:?}: a connection reached the UNIX socket");
        assert!(unix_dgram.recv(&mut [0u8; 8]).is_err(), "{kind:?}: a datagram reached the UNIX socket");
        assert!(udp.recv(&mut [0u8; 8]).is_err(), "{kind:?}: a datagram reached 127.0.0.1:{port}");
        assert!(!marker.exists(), "{kind:?}: a file was written outside the jail");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_child_holding_the_pipes_neither_hangs_the_run_nor_outlives_it() {
    // An interpreter may not start one; a third party's executable may,
    // and its whole process group goes when the run ends.
    let source = format!(
        "{ESCAPE}time = imp('time')\ntry:\n    pid = os.fork()\nexcept OSError as e:\n    pid = type(e).__name__\nif pid == 0:\n    time.sleep(120)\n    os._exit(0)\nprint('forked', pid)\n"
    );
    for kind in KINDS {
        let started = Instant::now();
        let outcome = run_in(kind, &source, "fork.py", Duration::from_secs(3));
        let took = started.elapsed();
        match kind {
            Kind::Oracle | Kind::Builtin => {
                assert_eq!(outcome.terminal, Terminal::Completed, "{kind:?}");
                assert!(
                    outcome.stdout.contains("forked PermissionError"),
                    "{kind:?}: an interpreter starts no process: {}",
                    outcome.stdout
                );
            }
            Kind::ThirdParty => {
                // The program ends while its child holds the reply's pipe.
                assert_eq!(outcome.terminal, Terminal::Completed, "{kind:?}");
                assert!(outcome.stdout.contains("forked "), "{kind:?}: {}", outcome.stdout);
            }
        }
        assert!(took < Duration::from_secs(20), "{kind:?}: took {took:?}");
    }
    // The third party's worker serves the next run at once, and goes with
    // every process it started.
    let mut worker = Worker::for_target(&plain_target(), config(Duration::from_secs(2))).unwrap();
    let leader = worker.pid().expect("a worker");
    for (source, path) in [(source.as_str(), "fork2.py"), ("x = 1\n", "next.py")] {
        let run = worker.run_target(source, path, Mode::Original).0;
        assert!(matches!(&run, ModeRun::Ran { outcome } if outcome.terminal == Terminal::Completed), "{run:?}");
    }
    drop(worker);
    // Killed processes take a moment to go (a PID namespace's first, last).
    let until = Instant::now() + Duration::from_secs(5);
    while !in_group(leader).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let alive = in_group(leader);
    let stats: Vec<String> = alive.iter().map(|p| std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default()).collect();
    assert!(alive.is_empty(), "processes of the worker's group {leader} outlived it: {stats:?}");
}

#[test]
fn a_flood_of_output_is_bounded() {
    let source = format!("{ESCAPE}chunk = b'x' * (1 << 20)\nfor i in range(3000):\n    os.write(1, chunk)\nprint('done')\n");
    let started = Instant::now();
    let python = Python::find().expect("python3");
    let run = python.run(&source, "flood.py", &config(Duration::from_secs(20)));
    assert!(matches!(&run, CpythonRun::Skipped { reason } if reason.contains("printed more than")), "{run:?}");
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-pointer.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert!((usage.ru_maxrss as u64) < (1 << 20), "this process grew to {} KiB", usage.ru_maxrss);
    assert!(started.elapsed() < Duration::from_secs(25));
}

#[test]
fn nothing_a_program_rebinds_in_a_target_worker_reaches_the_next_program() {
    // The plain target's unstaged mode, made wrong: `1 + 1` becomes 3.
    let wrong = PLAIN.replace("code, uncompilable = compile_program(request[\"source\"]", "code, uncompilable = compile_program(request[\"source\"].replace('1 + 1', '3') if request['mode'] == 'unstaged' else request[\"source\"]");
    let path = common::third_party_target("jail", "wrong", &wrong);
    let target = Target::resolve(&path.display().to_string()).expect("the wrong target");
    let mut worker = Worker::for_target(&target, config(Duration::from_secs(10))).unwrap();
    // Program A undoes the miscompilation in the worker's own functions.
    let a = "g = __import__.__globals__\nreal = g['compile_program']\ng['compile_program'] = lambda source, path: real(source.replace('3', '1 + 1'), path)\n";
    let b = "x = 1 + 1\n";
    for (source, path) in [(a, "a.py"), (b, "b.py")] {
        let report = check(&mut worker, source, path, &[Mode::Original, Mode::Unstaged]).unwrap();
        if path == "b.py" {
            assert!(matches!(report.verdict, Verdict::Diverged { .. }), "B gives its own verdict: {:?}", report.verdict);
        }
    }
}

/// The live (not zombie) processes of process group `group`, by pid.
fn in_group(group: u32) -> Vec<u32> {
    let mut alive = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // After the command name: state, parent, process group.
        let fields: Vec<&str> = stat.rsplit_once(')').map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
        if fields.get(2) == Some(&group.to_string().as_str()) && fields.first() != Some(&"Z") {
            alive.push(pid);
        }
    }
    alive
}

#[test]
fn devices_says_what_the_jail_applies_and_what_is_turned_off() {
    let line = |env: Option<&str>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_stagecheck"));
        command.arg("devices");
        if let Some(v) = env {
            command.env("STAGECHECK_NO_CONFINE", v);
        }
        let out = command.output().expect("stagecheck devices runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        stdout
            .lines()
            .find(|l| l.starts_with("interpreters"))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no interpreters line: {stdout}"))
    };
    let on = line(None);
    assert!(on.contains("own process group") && on.contains("seccomp refusing") && !on.contains(" off ("), "{on}");
    let off = line(Some("seccomp"));
    assert!(off.contains("seccomp off (STAGECHECK_NO_CONFINE)"), "{off}");
}

/// The red team's row as a user meets it: `corpus replay` of a target's
/// directory whose first entry rebinds the worker's converter to hand back
/// the function unconverted. The second entry, a known AutoGraph bug,
/// must still diverge: each program starts from the worker's state at `ready`.
#[test]
fn a_target_corpus_whose_first_entry_rebinds_the_worker_replays_as_expected() {
    let _ = autograph();
    let dir = std::env::temp_dir().join(format!("stagecheck-jail-corpus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let header = |id: &str, expect: &str| {
        format!("# id: {id}\n# construct: chained\n# modes: original,unstaged\n# expect: {expect}\n# target: autograph\n\n")
    };
    let rebind = "tf = __import__.__globals__['tf']\ntf.autograph.to_graph = lambda f, recursive=True: f\n";
    std::fs::write(dir.join("001_rebinds_the_converter.py"), format!("{}{rebind}", header("jail-001", "agree"))).unwrap();
    let known =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/autograph/002_chained_compare_twice.py")).unwrap();
    let body: String = known.lines().skip_while(|l| l.starts_with('#') || l.is_empty()).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("002_chained_compare_twice.py"), format!("{}{body}", header("jail-002", "diverged"))).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stagecheck")).args(["corpus", "replay"]).arg(&dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("2 programs, 2 as expected, 0 not"), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
