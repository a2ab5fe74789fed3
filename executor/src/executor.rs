//! One interpreter, reused for many runs, each in a fresh scope.
//!
//! [`Executor::run`] compiles (through the code cache), runs the module in a
//! fresh scope, renders the globals it bound, clears the scope and restores
//! the shared state ([`crate::snapshot::Snapshot`]). Everything that can run
//! user code (the body, `str()` of its exception, rendering, the finalizers
//! the teardown triggers, the snapshot restore) runs only inside the window
//! the watchdog watches and `catch_unwind` guards: a panic there (a VM
//! crash, or a limit's [`crate::watchdog::LimitPanic`]) is this run's
//! `crashed` or `diverged` outcome, with its stdout so far, and the
//! interpreter is replaced, its state no longer trusted; so it is when the
//! restore leaves the shared state other than built (`Outcome::leaks`,
//! `Config::leak_check`). Addresses in the
//! outcome are then named ([`crate::addresses`]); its texts (exception type and
//! message, the traceback's names, a crash's message) are bounded
//! ([`crate::bounds::text`]).

use crate::alloc::Budget;
use crate::code_cache::CodeCache;
use crate::config::Config;
use crate::outcome::{Frame, Outcome, Terminal};
use crate::phases::Phases;
use crate::render::{str_of, Renderer};
use crate::sandbox;
use crate::snapshot::Snapshot;
use crate::watchdog::{LimitPanic, Watchdog};
use crate::{capture, panics};
use rustpython_vm::{builtins::PyBaseExceptionRef, AsObject, Interpreter, VirtualMachine};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicU8;
use std::sync::Arc;
use std::time::Instant;

/// A program the VM could not compile.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SyntaxError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// Runs programs on one sandboxed RustPython interpreter. Not `Send`: create
/// it on the thread that uses it (see [`crate::ThreadWorker`]), which needs a large
/// stack (RustPython recurses deeply; [`crate::worker::STACK_SIZE`]).
pub struct Executor {
    config: Config,
    interp: Interpreter,
    snapshot: Snapshot,
    watchdog: Watchdog,
    memory_flag: Arc<AtomicU8>,
    codes: CodeCache,
    phases: Phases,
}

impl Executor {
    pub fn new(config: Config) -> Executor {
        panics::install_hook();
        let memory_flag = Arc::new(AtomicU8::new(0));
        let (interp, sender, snapshot) =
            sandbox::build(&config.allowed_modules, config.recursion_limit, config.debug_panic, config.debug_os_probe);
        let watchdog = Watchdog::new(sender, memory_flag.clone(), config.memory_limit);
        Executor { config, interp, snapshot, watchdog, memory_flag, codes: CodeCache::default(), phases: Phases::default() }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Where the last run's time went.
    pub fn last_phases(&self) -> Phases {
        self.phases
    }

    /// Compiles and runs `source` (named `path` in tracebacks) in a fresh scope.
    pub fn run(&mut self, source: &str, path: &str) -> Result<Outcome, SyntaxError> {
        let mut phases = Phases::default();
        let clock = Instant::now();
        let codes = &mut self.codes;
        let code = self.interp.enter(|vm| {
            crate::alloc_guards::install(vm);
            crate::bytecode::install(vm);
            if let Err(deep) = crate::nesting::check(source) {
                return Err(SyntaxError { line: deep.line, column: deep.column, message: deep.message.into() });
            }
            codes.code(vm, source, path).map_err(|e| {
                let (line, column) = e.python_location();
                SyntaxError { line: line.max(1) as u32, column: column.max(1) as u32, message: e.to_string() }
            })
        });
        phases.compile = clock.elapsed();
        self.phases = phases;
        let code = code?;
        let started = Instant::now();
        capture::start(self.config.stdout_limit);
        let budget = Budget::start(self.config.memory_limit, &self.memory_flag);
        self.watchdog.arm(self.config.time_limit);
        stagecheck_staging::tensors::set_deadline(started + self.config.time_limit);
        stagecheck_staging::tensors::set_shadow(self.config.gpu_shadow);
        let guard = panics::RunGuard::enter();
        let (interp, snapshot) = (&self.interp, &self.snapshot);
        let executed_at = std::cell::Cell::new(None);
        let leak_check = self.config.leak_check;
        // Everything that can run user code stays inside the watched, guarded
        // window: the body, `str()` of its exception, rendering, and the
        // teardown (clearing the globals runs finalizers, restoring the
        // shared dicts drops what the program stored there). A panic anywhere
        // in it is this run's `crashed` outcome, with its stdout so far.
        let result = catch_unwind(AssertUnwindSafe(|| {
            interp.enter(|vm| {
                let scope = vm.new_scope_with_builtins();
                let _ = scope.globals.set_item("__name__", vm.ctx.new_str("__main__").into(), vm);
                let initial = scope.globals.keys_vec();
                let executing = Instant::now();
                let result = vm.run_code_obj(code, scope.clone());
                phases.execute = executing.elapsed();
                phases.setup = started.elapsed() - phases.execute;
                executed_at.set(Some(started.elapsed()));
                let rendering = Instant::now();
                let terminal = match result {
                    Ok(_) => Terminal::Completed,
                    Err(exc) => raised(vm, &exc, path),
                };
                let mut renderer = Renderer::new(vm);
                let globals: Vec<_> = scope
                    .globals
                    .items_vec()
                    .into_iter()
                    .filter(|(k, _)| !initial.iter().any(|i| i.is(k)))
                    .map(|(k, v)| (str_of(&k), v))
                    // The warnings machinery's bookkeeping, not the program's.
                    .filter(|(k, _)| k != "__warningregistry__")
                    .map(|(k, v)| (k, renderer.render(&v)))
                    .collect();
                phases.render = rendering.elapsed();
                let restoring = Instant::now();
                scope.globals.clear();
                drop(scope);
                stagecheck_staging::tensors::end_run();
                snapshot.restore(vm);
                let leaks = if leak_check { snapshot.leaks(vm) } else { Vec::new() };
                phases.restore = restoring.elapsed();
                (terminal, globals, leaks)
            })
        }));
        self.watchdog.disarm();
        drop(guard);
        let micros = executed_at.get().unwrap_or_else(|| started.elapsed()).as_micros() as u64;
        let (terminal, globals, leaks) = match result {
            // What leaked past the restore would reach every later run: the
            // interpreter is replaced, as after a crash.
            Ok((terminal, globals, leaks)) if !leaks.is_empty() => {
                self.replace_interpreter();
                (terminal, globals, leaks)
            }
            Ok(ended) => ended,
            Err(payload) => {
                let terminal = match payload.downcast_ref::<LimitPanic>() {
                    Some(LimitPanic(limit)) => Terminal::Diverged { limit: *limit },
                    None => Terminal::Crashed { message: crate::bounds::text(&panics::last_message(&*payload)).into_owned() },
                };
                self.replace_interpreter();
                (terminal, Vec::new(), Vec::new())
            }
        };
        drop(budget);
        let (stdout, stdout_truncated) = capture::take();
        let graph = if self.config.keep_graph { stagecheck_staging::tensors::graph_text() } else { String::new() };
        self.phases = phases;
        let tolerance = stagecheck_staging::tensors::run_tolerance();
        let gpu_mismatches = stagecheck_staging::tensors::take_mismatches();
        let gpu_flushed = stagecheck_staging::tensors::take_flushed();
        let mode_read = stagecheck_staging::tensors::mode_read();
        let mut outcome = Outcome {
            terminal,
            stdout,
            stdout_truncated,
            globals,
            micros,
            graph,
            tolerance,
            gpu_mismatches,
            leaks,
            gpu_flushed,
            mode_read,
            taken_from: None,
        };
        crate::addresses::normalize(&mut outcome);
        Ok(outcome)
    }

    /// A panic unwound through the VM: its state is no longer trusted.
    fn replace_interpreter(&mut self) {
        let fresh = Executor::new(self.config.clone());
        let old = std::mem::replace(self, fresh);
        // Dropping a VM abandoned mid-frame may itself panic; leak it then.
        if catch_unwind(AssertUnwindSafe(move || drop(old))).is_err() {
            eprintln!("stagecheck: an interrupted interpreter could not be dropped");
        }
    }
}

/// The terminal state of a run that raised.
fn raised(vm: &VirtualMachine, exc: &PyBaseExceptionRef, path: &str) -> Terminal {
    let text = |s: &str| crate::bounds::text(s).into_owned();
    let exc_type = text(&exc.class().name());
    let message = exc.as_object().str(vm).map(|s| text(&s.to_string_lossy()));
    let mut traceback = Vec::new();
    let mut tb = exc.__traceback__();
    while let Some(t) = tb {
        let code = &t.frame.code;
        traceback.push(Frame {
            file: text(code.source_path().as_str()),
            line: t.lineno.get() as u32,
            function: text(code.obj_name.as_str()),
        });
        tb = t.next.lock().clone();
    }
    if traceback.len() > 64 {
        // Keep the outermost and innermost frames of deep recursions.
        let tail = traceback.split_off(traceback.len() - 32);
        traceback.truncate(32);
        traceback.extend(tail);
    }
    let line = traceback.iter().rev().find(|f| f.file == path).map(|f| f.line);
    let refusal = exc_type == "StagingError" && stagecheck_staging::tensors::is_staging_error(exc);
    Terminal::Raised { refusal, exc_type, message: message.unwrap_or_else(|_| "<unprintable message>".into()), line, traceback }
}
