//! Staged side effects: print, assert, `sc.Variable` and
//! `sc.py_function` run at every execution of a graph (host nodes), not once
//! per trace. Each program must print in the staged mode what it prints in
//! the original mode; the staged run's graph text says how often it traced.

use stagecheck::executor::{Config, Outcome, Terminal};
use stagecheck::modes::Mode;
use stagecheck::worker::Worker;

/// Runs `src` in `mode`: as written in the original mode, converted in the staged one.
fn run(w: &mut Worker, src: &str, mode: Mode) -> Outcome {
    let source = match mode {
        Mode::Original => src.to_string(),
        _ => stagecheck_transformer::convert(src, "prog.py").expect("converts").source,
    };
    w.run_in(&source, "prog.py", mode).expect("compiles")
}

/// The original and staged outcomes, whose terminals and stdout agree.
fn agree(src: &str) -> (Outcome, Outcome) {
    let mut w = Worker::new(Config::default());
    let original = run(&mut w, src, Mode::Original);
    let staged = run(&mut w, src, Mode::Staged);
    // Lines are the converted program's in the staged run (the oracle maps them).
    assert!(staged.terminal.same_as(&original.terminal), "{src}\n{:?}\n{:?}", staged.terminal, original.terminal);
    assert_eq!(staged.stdout, original.stdout, "{src}\ngraphs:\n{}", staged.graph);
    (original, staged)
}

#[test]
fn a_variable_changed_between_calls_is_no_retrace() {
    let (original, staged) = agree(
        "import stagecheck as sc
v = sc.Variable(1.0)
@sc.function
def f(x):
    i = sc.constant(0)
    while i < 3:
        v.assign_add(x)
        i = i + 1
    return v * 2.0
for k in range(4):
    print(f(sc.constant(0.5)))
    v.assign(float(k))
",
    );
    assert_eq!(original.stdout.lines().count(), 4);
    assert!(staged.graph.contains("; traces: 1 (f: 1)"), "{}", staged.graph);
    assert!(!staged.graph.contains("; retraces"), "{}", staged.graph);
    assert!(staged.graph.contains("(host assign_variable"), "{}", staged.graph);
    // A global Variable is compared by value: the last assign is 3.0.
    assert_eq!(staged.globals, original.globals);
    assert!(format!("{:?}", staged.globals).contains("(\"v\", Tensor { dtype: \"float32\""), "{:?}", staged.globals);
}

#[test]
fn print_in_a_staged_loop_prints_at_every_iteration_in_order() {
    let (original, staged) = agree(
        "import stagecheck as sc
@sc.function
def f(n):
    i = sc.constant(0)
    while i < n:
        print('at', i, [i, i * 2], sep=', ', end=';\\n')
        i = i + 1
    return i
print('before')
f(sc.constant(2))
print('between')
f(sc.constant(3))
",
    );
    assert_eq!(original.stdout.lines().count(), 7, "{}", original.stdout);
    assert!(staged.graph.contains("(host print"), "{}", staged.graph);
}

#[test]
fn what_a_py_function_raises_reaches_the_program() {
    let (original, _) = agree(
        "import stagecheck as sc
def check(t):
    if t.numpy() > 2:
        raise KeyError('big')
    return t + 1
@sc.function
def f(x):
    return sc.py_function(check, [x], sc.int32)
print(f(sc.constant(1)))
try:
    f(sc.constant(5))
except KeyError as e:
    print('caught', e)
f(sc.constant(7))
",
    );
    assert!(matches!(&original.terminal, Terminal::Raised { exc_type, .. } if exc_type == "KeyError"), "{:?}", original.terminal);
    assert!(original.stdout.contains("caught 'big'"), "{}", original.stdout);
}
