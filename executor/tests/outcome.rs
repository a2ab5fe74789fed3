//! What a run reports: terminal state, stdout, structurally rendered globals.

use stagecheck_executor::{Config, Outcome, Terminal, ThreadWorker, Value};

fn run(src: &str) -> Outcome {
    ThreadWorker::new(Config::default()).run(src, "prog.py").expect("compiles")
}

fn globals(out: &Outcome) -> Vec<String> {
    out.globals.iter().map(|(k, v)| format!("{k} = {v}")).collect()
}

#[test]
fn scalars_render_exactly() {
    let out = run("a = 2**100\nb = -0.0\nc = float('nan')\nd = 0.1 + 0.2\ne = True\nf = None\ng = 'h\\u00e9'\nh = b'\\x00a'\ni = 1+2j");
    assert_eq!(out.terminal, Terminal::Completed);
    assert_eq!(
        globals(&out),
        [
            "a = 1267650600228229401496703205376",
            "b = -0.0",
            "c = nan",
            "d = 0.30000000000000004",
            "e = True",
            "f = None",
            "g = \"hé\"",
            "h = b\"\\0a\"",
            "i = (1.0+2.0j)",
        ]
    );
    assert_ne!(out.globals[1].1, Value::Float(0.0f64.to_bits()));
}

#[test]
fn containers_functions_classes_and_instances() {
    let src = r#"
l = [1, (2, 3), {'k': [4]}]
s = {'b', 'a', 'c'}
fs = frozenset([3, 1])
r = range(1, 10, 2)
def outer():
    def inner():
        pass
    return inner
f = outer()
class P:
    def __init__(self):
        self.y = 2
        self.x = [1]
p = P()
class L(list):
    pass
q = L([1, 2])
q.tag = 'n'
"#;
    let out = run(src);
    assert_eq!(out.terminal, Terminal::Completed);
    assert_eq!(
        globals(&out),
        [
            "l = [1, (2, 3), {\"k\": [4]}]",
            "s = {\"a\", \"b\", \"c\"}",
            "fs = frozenset({1, 3})",
            "r = range(1, 10, 2)",
            "outer = <function outer>",
            "f = <function outer.<locals>.inner>",
            "P = <class P>",
            "p = <P x=[1] y=2>",
            "L = <class L>",
            "q = <L [1, 2] tag=\"n\">",
        ]
    );
}

#[test]
fn cycles_are_rendered_without_looping() {
    let out = run("a = [1]\na.append(a)\nd = {}\nd['self'] = d");
    assert_eq!(globals(&out), ["a = [1, <cycle 1 up>]", "d = {\"self\": <cycle 1 up>}"]);
}

#[test]
fn opaque_objects_render_without_addresses() {
    let out = run("def g():\n    yield 1\ngen = g()\nit = iter([1])");
    assert_eq!(globals(&out)[1], "gen = <generator object>");
    assert_eq!(globals(&out)[2], "it = <list_iterator object>");
}

#[test]
fn an_exception_reports_type_message_and_original_line() {
    let out = run("x = 1\n\ndef f(d):\n    return d['missing']\n\nf({})\n");
    match &out.terminal {
        Terminal::Raised { exc_type, message, line, traceback, .. } => {
            assert_eq!(exc_type, "KeyError");
            assert_eq!(message, "'missing'");
            assert_eq!(*line, Some(4));
            assert_eq!(traceback.len(), 2);
            assert_eq!(traceback[1].function, "f");
        }
        other => panic!("{other}"),
    }
    // Globals bound before the exception are still reported.
    assert_eq!(globals(&out)[0], "x = 1");
}

#[test]
fn stdout_is_captured_with_print_semantics() {
    let out = run("print(1, 'a', sep='-', end='!')\nprint()\nprint([1.5, None])");
    assert_eq!(out.stdout, "1-a!\n[1.5, None]\n");
}

#[test]
fn stdout_is_capped() {
    let mut w = ThreadWorker::new(Config { stdout_limit: 100, ..Config::default() });
    let out = w.run("for i in range(1000):\n    print(i)", "p.py").unwrap();
    assert_eq!(out.stdout.len(), 100);
    assert!(out.stdout_truncated);
    assert_eq!(out.terminal, Terminal::Completed);
}

#[test]
fn set_order_is_deterministic_across_interpreters() {
    let src = "s = {'alpha', 'beta', 'gamma', 'delta', 'eps'}\nprint(list(s))";
    let a = run(src);
    let b = run(src);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn syntax_errors_are_reported_with_line_and_column() {
    let err = ThreadWorker::new(Config::default()).run("x = 1\ny = (2 +\n", "bad.py").unwrap_err();
    assert!(err.line >= 2, "{err:?}");
    assert!(err.column >= 1);
    assert!(!err.message.is_empty());
}

#[test]
fn outcomes_serialise_to_json_and_back() {
    let out = run("a = [1.5, {'x': (None, b'z')}]\nraise ValueError('v')");
    let json = serde_json::to_string(&out).unwrap();
    let back: Outcome = serde_json::from_str(&json).unwrap();
    assert_eq!(back, out);
}

/// Rendering runs no user code: a program's classes that claim the
/// runtime's names and modules are instances like any other, and their
/// properties are never called; the runtime's own objects still render.
#[test]
fn rendering_never_calls_a_program_class_posing_as_the_runtime() {
    let src = "import stagecheck as sc\nclass Function:\n    @property\n    def python_function(self):\n        print('user code ran')\n        return len\nFunction.__module__ = 'stagecheck.staging'\nclass Tensor:\n    @property\n    def _h(self):\n        print('user code ran')\n        return 0\nTensor.__module__ = 'stagecheck.tensor'\nf = Function()\nt = Tensor()\nreal = sc.constant([1, 2])\n@sc.function\ndef g(x):\n    return x\n";
    let out = run(src);
    assert_eq!(out.terminal, Terminal::Completed, "{out}");
    assert_eq!(out.stdout, "", "a program's property ran while rendering");
    let shown = globals(&out).join("\n");
    assert!(shown.contains("f = <Function>") && shown.contains("t = <Tensor>"), "{shown}");
    assert!(shown.contains("real = sc.Tensor") || shown.contains("real = <tensor"), "{shown}");
    assert!(shown.contains("g = <function g>"), "{shown}");
}
