//! Targets: staging compilers under test in their own runtime
//! (`--target NAME` on `check`, `fuzz`, `reduce`; corpus entries with a
//! `# target:` line). stagecheck sends a program and a mode to a persistent
//! worker process of the target and gets an outcome in the shape of its own
//! runs, compared by the same oracle ([`crate::oracles::convergence::verdict`]). The
//! protocol is `targets/README.md` ([`protocol`]); the supervision (socket
//! pair as stdin/stdout, deadline, kill, restart, the crash message) is the
//! worker processes' own ([`crate::worker::process`]), in [`process`].
//!
//! Built-in targets, each a worker script run by the Python of the venv
//! `scripts/target-venv` makes ([`venv_python`]), after the Python kit
//! ([`PYTHON_KIT`], which also runs the CPython oracle's programs):
//!
//! | name | family | modes | what runs |
//! |---|---|---|---|
//! | `autograph` | plain | original, unstaged | CPython; `tf.autograph.to_graph(f, recursive=True)` on each top-level function, called with Python values |
//! | `tf-function` | tensor | original, staged | the `sc` API mapped onto TensorFlow (a shim); eager TensorFlow against `@sc.function` as `tf.function` |
//! | `torch-compile` | both | original, compiled | CPython; `torch.compile(f, backend="eager")` on each top-level function (TorchDynamo), in the torch venv; tensor programs through the `sc` API mapped onto PyTorch (`@sc.function` as `torch.compile`); `torch-compile:aot_eager` another backend |
//!
//! Any other NAME containing a `/` is an executable that speaks the protocol
//! (a third party's converter, the protocol's tests): its `ready` says its
//! modes. Programs under a target are not in RustPython's sandbox: every
//! target's worker runs in the jail ([`crate::jail`], [`Target::policy`]:
//! read the interpreter's prefixes (a third party's: its own directory) and
//! the system's libraries, write one private temporary directory, run no
//! other program (a third party's: the system's commands), no network).
//!
//! A target's refusal (`refused`) is a verdict `Refused` with construct
//! `target` (intended: `crate::oracles::refusals`); a run that `fell_back` (a part
//! declined and run as written) is compared like any run, and is that
//! refusal where it agrees with the original; `uncompilable` in `original` is
//! bad input, as RustPython's syntax errors are; a worker that dies is a
//! `crashed` run (a finding), one past the time limit a `diverged` one; a
//! compiler that reports its own internal error (`crashed`) is a converter
//! crash (`ModeRun::ConverterCrashed`, a finding whatever the original did).

pub mod process;
pub mod protocol;

use crate::executor::Outcome;
use crate::input::InputError;
use crate::modes::{Mode, ModeRun};
use crate::worker::Worker;
use stagecheck_generator::{Family, Settings};
use std::ffi::OsString;
use std::path::PathBuf;

/// The Python kit (rendering, capture, the sandbox's builtins, frames):
/// the CPython oracle's wrapper and every Python target's worker start with it.
pub const PYTHON_KIT: &str = include_str!("../../targets/python/stagecheck_target.py");

/// The construct of every target refusal (`crate::oracles::refusals`).
pub const REFUSAL: &str = "target";

/// A staging compiler under test, and how to start its worker.
#[derive(Clone, Debug)]
pub struct Target {
    /// `autograph`, or the executable's path.
    pub name: String,
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Python targets: what the jail lets the interpreter read besides the
    /// system's libraries; None for an executable of a third party (which
    /// may read beside itself and run the system's commands).
    pub confine: Option<Vec<PathBuf>>,
    /// The family of programs it takes, where it takes one only (None: both,
    /// or an executable's, which does not say).
    pub family: Option<Family>,
    /// Its modes, `original` first: the built-ins' own; an executable's from its `ready`.
    pub modes: Vec<Mode>,
    /// What the generator leaves out for it (`Settings::DEFAULT` for an executable).
    pub generator: Settings,
}

/// A built-in target: name, family, modes, the venv its worker runs in, the
/// worker script after the kit.
struct Builtin {
    name: &'static str,
    /// None: both families.
    family: Option<Family>,
    modes: &'static [Mode],
    venv: &'static Venv,
    script: &'static str,
    /// Whether `NAME:OPTION` passes OPTION to its worker (`torch-compile:aot_eager`: the backend).
    option: bool,
    /// The rows it never supports and the fuel (`stagecheck_generator::Settings`).
    generator: Settings,
}

/// A venv `scripts/target-venv` makes: the script's argument, the variable
/// naming another, its directory under the cache, what it installs.
pub struct Venv {
    arg: Option<&'static str>,
    var: &'static str,
    dir: &'static str,
    holds: &'static str,
}

const TF_VENV: Venv = Venv { arg: None, var: "STAGECHECK_TF_VENV", dir: "venv-tf", holds: "tensorflow-cpu and numpy" };
const TORCH_VENV: Venv = Venv { arg: Some("torch"), var: "STAGECHECK_TORCH_VENV", dir: "venv-torch", holds: "torch" };

const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "autograph",
        family: Some(Family::Plain),
        modes: &[Mode::Original, Mode::Unstaged],
        venv: &TF_VENV,
        script: include_str!("../../targets/autograph/worker.py"),
        option: false,
        // AutoGraph declines every generator and every loop's else (its
        // refusals, 37.8% of the programs before): never generated for it.
        generator: Settings { never: &["generator", "generator_protocol", "loop_else"], fuel: true, rebind: false },
    },
    Builtin {
        name: "tf-function",
        family: Some(Family::Tensor),
        modes: &[Mode::Original, Mode::Staged],
        venv: &TF_VENV,
        script: include_str!("../../targets/tf_function/worker.py"),
        option: false,
        generator: Settings::DEFAULT,
    },
    Builtin {
        name: "torch-compile",
        // Plain programs, and tensor programs through the sc shim.
        family: None,
        modes: &[Mode::Original, Mode::Compiled],
        venv: &TORCH_VENV,
        script: include_str!("../../targets/torch_compile/worker.py"),
        option: true,
        // Dynamo guards the fuel counter every function reads and recompiles
        // them all at each call: no fuel (bounded by construction).
        // Both sides one CPython: sets' order compared; functions called
        // again after the globals they read are rebound.
        // Gradient tapes have no shim (TensorFlow's tape over PyTorch's
        // autograd is a converter of its own).
        generator: Settings { never: &["tape_gradient"], fuel: false, rebind: true },
    },
];

/// The built-in targets' names.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTINS.iter().map(|b| b.name).collect()
}

/// The generator settings of the built-in target `name` (`generate --target`).
pub fn generator_settings(name: &str) -> Option<Settings> {
    builtin(name).map(|b| b.generator)
}

/// The venv of the built-in target `name` (`scripts/target-venv [ARG]`
/// makes it): `$VAR`, else `~/.cache/stagecheck/DIR` (`$STAGECHECK_CACHE`).
pub fn venv_dir(name: &str) -> PathBuf {
    let venv = builtin(name).map_or(&TF_VENV, |b| b.venv);
    if let Some(v) = std::env::var_os(venv.var) {
        return v.into();
    }
    let cache = std::env::var_os("STAGECHECK_CACHE").map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| "/root".into());
        home.join(".cache/stagecheck")
    });
    cache.join(venv.dir)
}

/// The built-in `name` names (`NAME:OPTION` too).
fn builtin(name: &str) -> Option<&'static Builtin> {
    let base = name.split(':').next().unwrap_or(name);
    BUILTINS.iter().find(|b| b.name == base)
}

/// The command that makes `name`'s venv, in words.
fn venv_command(venv: &Venv) -> String {
    format!("scripts/target-venv{}", venv.arg.map(|a| format!(" {a}")).unwrap_or_default())
}

/// The python of the built-in target `name`'s venv, or why there is none.
pub fn venv_python(name: &str) -> Result<PathBuf, String> {
    let python = venv_dir(name).join("bin/python");
    let venv = builtin(name).map_or(&TF_VENV, |b| b.venv);
    if python.is_file() {
        Ok(python)
    } else {
        Err(format!("no venv at {}: run {} (it installs {} with pip, once)", venv_dir(name).display(), venv_command(venv), venv.holds))
    }
}

/// Makes the built-in target `name`'s venv with this checkout's
/// `scripts/target-venv` (the tests' way: `corpus` entries of a target
/// replayed by `tests/corpus.rs`); `Err` with the script's words where it cannot.
pub fn install_venv(name: &str) -> Result<(), String> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/target-venv");
    if !script.is_file() {
        return Err(format!("no {} to make the venv with", script.display()));
    }
    let venv = builtin(name).map_or(&TF_VENV, |b| b.venv);
    let out = std::process::Command::new(&script).args(venv.arg).output().map_err(|e| format!("{}: {e}", script.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

impl Target {
    /// The target NAME names; `Err` says why it cannot run here.
    pub fn resolve(name: &str) -> Result<Target, String> {
        // `torch-compile:aot_eager`: a built-in with its worker's argument.
        let (base, option) = name.split_once(':').map_or((name, None), |(b, o)| (b, Some(o)));
        if let Some(b) = builtin(base).filter(|b| option.is_none() || b.option) {
            let python = venv_python(base).map_err(|e| format!("target {name}: {e}"))?;
            // The venv's python is a link to the base interpreter: Landlock
            // needs the real file, and the venv and the base library read.
            let real = std::fs::canonicalize(&python).unwrap_or_else(|_| python.clone());
            let mut readable = vec![venv_dir(base)];
            readable.extend(real.parent().and_then(|bin| bin.parent()).map(PathBuf::from));
            let script = format!("{PYTHON_KIT}\n{}", b.script);
            return Ok(Target {
                name: name.to_string(),
                program: python,
                args: vec!["-s".into(), "-B".into(), "-c".into(), script.into(), option.unwrap_or_default().into()],
                confine: Some(readable),
                family: b.family,
                modes: b.modes.to_vec(),
                generator: b.generator,
            });
        }
        if name.contains('/') {
            let program = PathBuf::from(name);
            if !program.is_file() {
                return Err(format!("target {name}: no such file"));
            }
            let mut target = Target {
                name: name.to_string(),
                program,
                args: Vec::new(),
                confine: None,
                family: None,
                modes: Vec::new(),
                generator: Settings::DEFAULT,
            };
            // Its modes are what its worker says it runs.
            let ready = process::TargetProcess::probe(&target)?;
            target.modes = parse_modes(&ready.modes).map_err(|e| format!("target {name}: {e}"))?;
            return Ok(target);
        }
        Err(format!(
            "unknown target {name:?}: built-in targets are {}; or give the path of an executable speaking targets/README.md's protocol",
            builtin_names().join(", ")
        ))
    }

    /// The jail its worker runs in, writing beneath `tmp` only.
    pub fn policy(&self, tmp: &std::path::Path) -> crate::jail::Policy {
        let mut policy = crate::jail::Policy {
            write: Some(tmp.to_path_buf()),
            env: crate::jail::base_env(Some(tmp)),
            file_size: crate::jail::FILE_SIZE,
            ..Default::default()
        };
        match &self.confine {
            Some(readable) => {
                // The venv's python is a link to the base interpreter: the
                // real file is what the kernel executes.
                policy.read = readable.clone();
                policy.exec = vec![std::fs::canonicalize(&self.program).unwrap_or_else(|_| self.program.clone())];
                // A fork server: it forks a child per run, which may not.
                policy.forks = true;
                policy.threads_only_children = true;
            }
            None => {
                let beside = std::fs::canonicalize(&self.program).ok().and_then(|p| p.parent().map(PathBuf::from));
                policy.read.extend(beside.clone());
                policy.exec.extend(beside.into_iter().chain(["/usr/bin", "/bin", "/usr/lib", "/usr/libexec"].map(PathBuf::from)));
                policy.forks = true;
            }
        }
        policy
    }

    /// `modes` cut to the target's: `Err` when none but `original` is left.
    /// The default (`Mode::ALL`) is the target's own modes.
    pub fn modes_of(&self, modes: &[Mode]) -> Result<Vec<Mode>, String> {
        if modes == Mode::ALL {
            return Ok(self.modes.clone());
        }
        let mut out = vec![Mode::Original];
        out.extend(modes.iter().copied().filter(|m| *m != Mode::Original && self.modes.contains(m)));
        if out.len() == 1 {
            let theirs: Vec<&str> = self.modes.iter().map(|m| m.name()).collect();
            return Err(format!("target {} runs the modes {}: none of those asked for", self.name, theirs.join(", ")));
        }
        Ok(out)
    }
}

/// A `ready`'s modes: `original` and at least one more, each a mode stagecheck knows.
pub fn parse_modes(modes: &[String]) -> Result<Vec<Mode>, String> {
    let modes: Vec<Mode> = modes.iter().map(|m| m.parse()).collect::<Result<_, _>>()?;
    if modes.first() != Some(&Mode::Original) || modes.len() < 2 {
        return Err(format!("a target's modes are original first and at least one more, not {modes:?}"));
    }
    Ok(modes)
}

/// `check`'s runs under a target: the program (source, path) in `modes` on
/// the target's worker, original first. `None` when the original's outcome
/// fails `go_on` (the reducer's early exit).
pub fn runs(
    worker: &mut Worker,
    (source, path): (&str, &str),
    modes: &[Mode],
    go_on: &dyn Fn(&Outcome) -> bool,
) -> Result<Option<Vec<(Mode, ModeRun)>>, InputError> {
    let original = match worker.run_target(source, path, Mode::Original).0 {
        ModeRun::Ran { outcome } => outcome,
        ModeRun::Uncompilable { message, line } => return Err(InputError(format!("{path}:{line}: {message}"))),
        ModeRun::Refused { error } => return Err(InputError(format!("{path}: the target does not run it as written: {}", error.reason))),
        ModeRun::ConverterCrashed { message } => return Err(InputError(format!("{path}: {message}"))),
    };
    if !go_on(&original) {
        return Ok(None);
    }
    let mut runs = vec![(Mode::Original, ModeRun::Ran { outcome: original })];
    for &mode in modes.iter().filter(|m| **m != Mode::Original) {
        let run = match worker.run_target(source, path, mode) {
            // Part ran as written: a difference is the converted rest's; no
            // difference, the refusal.
            (ModeRun::Ran { outcome }, Some(error)) => match &runs[0].1 {
                ModeRun::Ran { outcome: original } if crate::oracles::convergence::compare(original, &outcome).is_empty() => {
                    ModeRun::Refused { error }
                }
                _ => ModeRun::Ran { outcome },
            },
            (run, _) => run,
        };
        runs.push((mode, run));
    }
    Ok(Some(runs))
}
