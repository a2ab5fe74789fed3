//! Trace guards (staging/src/tensors/guards.rs): a staged function never
//! runs a stale trace. Each program changes, between two calls, a Python
//! value a trace read, and must print in the staged mode what it prints in
//! the original mode (programs as written: Python control flow runs while
//! tracing). The corpus (corpus/staged/guards/) has the converted forms.

use stagecheck_executor::{Config, Outcome, Terminal, ThreadWorker};
use stagecheck_staging::Mode;

fn run(w: &mut ThreadWorker, src: &str, mode: Mode) -> Outcome {
    w.run_in(src, "prog.py", mode).expect("compiles")
}

/// The program's stdout in the original and staged modes, which must agree;
/// the staged run's graph text.
fn agree(src: &str) -> String {
    let mut w = ThreadWorker::new(Config::default());
    let original = run(&mut w, src, Mode::Original);
    assert_eq!(original.terminal, Terminal::Completed, "{src}\noriginal printed: {}", original.stdout);
    let staged = run(&mut w, src, Mode::Staged);
    assert_eq!(staged.terminal, Terminal::Completed, "{src}\nstaged printed: {}", staged.stdout);
    assert_eq!(staged.stdout, original.stdout, "{src}\ngraphs:\n{}", staged.graph);
    staged.graph
}

fn retraces(graph: &str) -> usize {
    graph.lines().find_map(|l| l.strip_prefix("; retraces: ")).map_or(0, |n| n.parse().unwrap())
}

#[test]
fn a_global_read_through_a_staged_callee_is_guarded() {
    // Found by the fuzz loop.
    let g = agree(include_str!("../../corpus/staged/guards/001_global_through_staged_callee.py"));
    // Both retrace: the outer's call node named the inner's stale trace.
    assert_eq!(retraces(&g), 2, "{g}");
    assert!(g.contains("c: guard on a failed") && g.contains("b: guard on a failed"), "{g}");
}

#[test]
fn a_global_read_through_a_plain_helper_is_guarded() {
    agree(
        "import stagecheck as sc
k = 2
def helper(x):
    return x * k
@sc.function
def f(x):
    return helper(x)
x = sc.constant(3)
print(f(x))
k = 5
print(f(x))
",
    );
}

#[test]
fn attributes_of_classes_instances_and_modules_are_guarded() {
    agree(
        "import stagecheck as sc
import math
class Cfg:
    scale = 2
cfg = Cfg()
cfg.shift = 1
@sc.function
def f(x):
    return x * Cfg.scale + cfg.shift
x = sc.constant(3)
print(f(x))
Cfg.scale = 3
print(f(x))
cfg.shift = 10
print(f(x))
cfg.scale = 100
print(f(x))
",
    );
}

#[test]
fn items_and_lengths_of_containers_are_guarded() {
    agree(
        "import stagecheck as sc
cfg = {'k': 2}
w = [1, 2]
t = (3,)
@sc.function
def f(x):
    for v in w:
        x = x + v
    return x * cfg['k'] + t[0]
x = sc.constant(1)
print(f(x))
cfg['k'] = 4
print(f(x))
w[0] = 7
print(f(x))
w.append(1)
print(f(x))
t = (5,)
print(f(x))
",
    );
}

#[test]
fn closure_cells_defaults_and_builtins_are_guarded() {
    agree(
        "import stagecheck as sc
def make(n):
    def g(x, m=1):
        return x * n + m
    return g
g = make(2)
@sc.function
def f(x):
    return g(x) + len([1, 2])
x = sc.constant(1)
print(f(x))
g.__defaults__ = (5,)
print(f(x))
g = make(3)
print(f(x))
len = lambda s: 100
print(f(x))
",
    );
}

#[test]
fn scalars_in_shapes_and_static_conditions_are_guarded() {
    agree(
        "import stagecheck as sc
class P:
    n = 2
    on = True
p = P()
@sc.function
def f(x):
    y = sc.zeros([p.n]) + x
    if p.on:
        y = y + 1.0
    return y
x = sc.constant(1.0)
print(f(x))
p.n = 3
print(f(x))
p.on = False
print(f(x))
",
    );
}

#[test]
fn a_trace_that_mutates_what_it_reads_runs_again() {
    agree(
        "import stagecheck as sc
n = 0
log = []
@sc.function
def f(x):
    global n
    n += 1
    log.append(n)
    return x + n
x = sc.constant(1)
print(f(x), f(x), n, log)
",
    );
}

#[test]
fn an_unchanged_program_reuses_its_trace() {
    let g = agree(
        "import stagecheck as sc
W = sc.constant([1.0, 2.0])
SCALE = 3
def helper(v):
    return v * SCALE
@sc.function
def f(x):
    return helper(x) + W
x = sc.constant([0.5, 0.25])
for i in range(5):
    y = f(x)
W = sc.constant([3.0, 4.0])
print(y, f(x))
",
    );
    assert_eq!(retraces(&g), 0, "{g}");
}

#[test]
fn a_value_that_cannot_be_guarded_is_refused() {
    let mut w = ThreadWorker::new(Config::default());
    let out = run(
        &mut w,
        "import stagecheck as sc
class L(list):
    pass
xs = L([1, 2])
@sc.function
def f(x):
    return x + xs[0]
print(f(sc.constant(1)))
",
        Mode::Staged,
    );
    match &out.terminal {
        Terminal::Raised { exc_type, message, refusal, .. } => {
            assert_eq!(exc_type, "StagingError", "{message}");
            assert!(*refusal);
            assert!(message.contains("xs") && message.contains("subclass of list"), "{message}");
        }
        other => panic!("expected a refusal, got {other}"),
    }
}
