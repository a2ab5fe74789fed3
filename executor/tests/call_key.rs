//! The trace cache's key has two halves: the native key
//! (staging/src/tensors/call_key.rs: which arguments it writes by value,
//! and the order in which it hands the arguments' tensors to a cached
//! graph) and the Python side (`staging/functions.py: _arguments`, the
//! order of a trace's parameters; `staging/guards.py: _KEYED`, the scalars
//! its guards leave to the key). These tests hold the halves to each other.

use stagecheck_executor::{Config, Terminal, ThreadWorker};
use stagecheck_staging::Mode;

/// Runs `src` in `mode`; it must complete. Its stdout.
fn stdout(w: &mut ThreadWorker, src: &str, mode: Mode) -> String {
    let out = w.run_in(src, "prog.py", mode).expect("compiles");
    assert_eq!(out.terminal, Terminal::Completed, "{src}\nprinted: {}", out.stdout);
    out.stdout
}

#[test]
fn the_key_hands_tensors_over_in_the_order_of_the_trace_parameters() {
    // Each tensor's shape is its place in the call; the key writes each
    // tensor's signature in the order it passes the handles on.
    let src = r#"import stagecheck as sc
from stagecheck.staging import functions
def t(i):
    return sc.zeros([i + 1])
def native_order(key):
    out, at = [], 0
    while True:
        at = key.find('tfloat32[', at)
        if at < 0:
            return out
        end = key.index(']', at)
        out.append(int(key[at + 9:end]) - 1)
        at = end
cases = [
    ((t(0), t(1)), {}),
    ((), {'b': t(0), 'z': t(1)}),
    ((), {'z': t(1), 'b': t(0)}),
    ((), {'a': t(0), 'ab': t(1), 'b': t(2), 'Z': t(3), '_': t(4), 'é': t(5), 'zz': t(6)}),
    ((t(0), (t(1), [t(2), 3]), [t(3)]), {'k': (t(4),), 'j': [1, 'x']}),
]
for args, kwargs in cases:
    key = functions._n.call_key(args, kwargs, sc.Tensor)
    python = [x.shape[0] - 1 for x in functions._arguments(args, kwargs).tensors]
    print(native_order(key) == python, python)
"#;
    let out = stdout(&mut ThreadWorker::new(Config::default()), src, Mode::Original);
    assert!(!out.contains("False"), "{out}");
    assert_eq!(out.lines().count(), 5, "{out}");
}

#[test]
fn the_scalars_written_by_value_are_those_the_guards_leave_to_the_key() {
    // A value the key writes by identity is `o<id>`; every other is written
    // by value, and those are exactly the types in `_KEYED`.
    let src = r#"import stagecheck as sc
from stagecheck.staging import functions, guards
class C:
    pass
class I(int):
    pass
values = [0, -7, 2 ** 80, 1.5, -0.0, float('nan'), True, False, 'x', '', None,
          b'x', 1j, range(3), slice(1), Ellipsis, frozenset([1]), I(3), C(), C, len, sc.int32]
for v in values:
    key = functions._n.call_key((v,), {}, sc.Tensor)
    by_identity = key == '(o%x)k' % id(v)
    print((type(v) in guards._KEYED) != by_identity, type(v).__name__)
"#;
    let out = stdout(&mut ThreadWorker::new(Config::default()), src, Mode::Original);
    assert!(!out.contains("False"), "{out}");
    assert_eq!(out.lines().count(), 22, "{out}");
}

#[test]
fn keyword_tensors_reach_their_parameters_on_the_fast_path() {
    // 'z' sorts after 'b' by code point; the key once sorted the names'
    // Debug text ("[122]" < "[98]"), handing the cached graph b's tensor
    // as z: the second call printed -9.
    let src = "import stagecheck as sc
@sc.function
def f(b, z):
    return b - z
print(f(b=sc.constant(10), z=sc.constant(1)))
print(f(b=sc.constant(10), z=sc.constant(1)))
print(f(z=sc.constant(1), b=sc.constant(10)))
";
    let mut w = ThreadWorker::new(Config::default());
    let original = stdout(&mut w, src, Mode::Original);
    assert_eq!(original.matches("sc.Tensor(9,").count(), 3, "{original}");
    assert_eq!(stdout(&mut w, src, Mode::Staged), original);
}
