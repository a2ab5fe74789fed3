//! The third red-team pass against the VM: programs that made an outcome
//! hundreds of megabytes (values, messages), never ended (a huge int
//! rendered) or aborted the worker (allocations no guard saw).
//! Each must now end honestly within its limits (completed, or a
//! MemoryError/ValueError it could catch), with an outcome whose JSON stays
//! far under 10 MB, and the worker must live on. The CLI's side (what
//! `run --json` prints, the processes' RSS) is tests/bounded_output.rs.

use stagecheck_executor::{Config, Outcome, Terminal, ThreadWorker, Value};
use std::time::{Duration, Instant};

const MB: usize = 1 << 20;

fn run(w: &mut ThreadWorker, src: &str) -> Outcome {
    w.run(src, "prog.py").expect("compiles")
}

fn json_size(out: &Outcome) -> usize {
    serde_json::to_string_pretty(out).unwrap().len()
}

fn global<'a>(out: &'a Outcome, name: &str) -> &'a Value {
    &out.globals.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no {name}: {:?}", out.terminal)).1
}

fn still_alive(w: &mut ThreadWorker) {
    let out = run(w, "print(sum(i * i for i in range(10)))");
    assert_eq!((out.terminal, out.stdout.as_str()), (Terminal::Completed, "285\n"));
}

#[test]
fn a_long_string_shared_by_many_references_renders_once_abbreviated() {
    let mut w = ThreadWorker::new(Config::default());
    // Was 235 MB of JSON; and the second grew the worker to 4 GB.
    for (src, name, len, refs) in
        [("s = 'x' * (32 << 20); g = [s] * 6", "s", 32 * MB, 6), ("k = 'y' * (8 << 20); g = [k] * 200000", "k", 8 * MB, 200_000)]
    {
        let started = Instant::now();
        let out = run(&mut w, src);
        assert_eq!(out.terminal, Terminal::Completed, "{src}");
        assert!(started.elapsed() < Duration::from_secs(2), "{src}: {:?}", started.elapsed());
        assert!(json_size(&out) < MB, "{src}: {} bytes", json_size(&out));
        let Value::List(items) = global(&out, "g") else { panic!("{src}") };
        assert!(matches!(&items[0], Value::Long { of, len: l, .. } if of == "str" && *l == len as u64), "{src}: {}", items[0]);
        assert_eq!(items[0], *global(&out, name));
        // Past the budget of units, one Truncated ends the list.
        assert_eq!(items.len() < refs, items.last() == Some(&Value::Truncated), "{src}: {} items", items.len());
    }
    still_alive(&mut w);
}

#[test]
fn long_values_compare_by_length_and_hash() {
    let mut w = ThreadWorker::new(Config::default());
    let out = run(&mut w, "a = 'x' * 5000\nb = 'x' * 4999 + 'y'\nc = 'x' * 5000\nd = b'x' * 5000\ne = bytearray(d)\nf = 'x' * 4096");
    let (a, b, c) = (global(&out, "a"), global(&out, "b"), global(&out, "c"));
    assert!(matches!(a, Value::Long { head, .. } if head.len() == 64), "{a}");
    assert_ne!(a, b);
    assert_eq!(a, c);
    assert_ne!(global(&out, "d"), global(&out, "e"));
    assert!(matches!(global(&out, "f"), Value::Str(s) if s.len() == 4096), "the longest kept whole");
}

#[test]
fn a_huge_exception_message_is_abbreviated_with_its_length() {
    let mut w = ThreadWorker::new(Config::default());
    // Was printed twice in full (419 MB).
    let out = run(&mut w, "raise ValueError('m' * (200 << 20))");
    let Terminal::Raised { exc_type, message, .. } = &out.terminal else { panic!("{}", out.terminal) };
    assert_eq!(exc_type, "ValueError");
    assert!(message.len() < 200 && message.contains("…<209715200 chars, sha256 "), "{message}");
    assert!(json_size(&out) < 4096);
    // Names in a traceback likewise.
    let out = run(&mut w, "def f():\n    raise KeyError(1)\nf.__code__ = f.__code__.replace(co_name='n' * 10**7)\nf()");
    let Terminal::Raised { traceback, .. } = &out.terminal else { panic!("{}", out.terminal) };
    assert!(traceback.iter().all(|f| f.function.len() < 200), "{traceback:?}");
    still_alive(&mut w);
}

#[test]
fn a_huge_int_renders_by_bit_length_and_is_not_converted() {
    let mut w = ThreadWorker::new(Config::default());
    // Rendering it never ended (quadratic conversion in native code).
    let started = Instant::now();
    let out = run(&mut w, "x = 1 << 10**8\ny = -(1 << 10**8)\nz = 10**4299\nr = range(x)");
    assert_eq!(out.terminal, Terminal::Completed);
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    let x = global(&out, "x");
    assert!(matches!(x, Value::Long { of, len: 100_000_001, head, .. } if of == "int" && head.is_empty()), "{x}");
    assert_ne!(x, global(&out, "y"));
    assert!(matches!(global(&out, "z"), Value::Int(s) if s.len() == 4300), "4300 digits are kept");
    assert!(json_size(&out) < 4300 + 4096, "{}", json_size(&out));
    // And the program's own conversion raises CPython's ValueError at once.
    let out = run(&mut w, "s = str(1 << 10**8)");
    let Terminal::Raised { exc_type, message, .. } = &out.terminal else { panic!("{}", out.terminal) };
    assert_eq!((exc_type.as_str(), &message[..41]), ("ValueError", "Exceeds the limit (4300 digits) for integ"));
    still_alive(&mut w);
}

#[test]
fn allocations_the_guards_missed_are_memory_errors() {
    let mut w = ThreadWorker::new(Config::default());
    // Each aborted the worker ("memory allocation of 2147483648 bytes
    // failed") or built a gigabyte in native code.
    for attack in [
        "('a' * 1000).replace('a', 'z' * 10**7)",
        "(b'a' * 1000).replace(b'a', b'z' * 10**7)",
        "bytearray(b'a' * 1000).replace(b'a', b'z' * 10**7)",
        "s = 'x' * (32 << 20)\n''.join([s] * 20000)",
        "s = 'x' * (32 << 20)\n''.join(x for x in [s] * 20000)",
        "b''.join([b'q' * 10**7] * 20000)",
        "bytearray().join([memoryview(b'q' * 10**7)] * 20000)",
        "'%*d' % (10**9, 1)",
        "'%-*d' % (-10**9, 1)",
        "b'%.*d' % (10**9, 1)",
        "f'{1:>{10**9}}'",
        "'{:>{w}}'.format(1, w=10**9)",
        "format(1.5, '>1000000000')",
        "format('a', '^1000000000')",
        "format(True, '>1000000000')",
        "format(1j, '>1000000000')",
        "(b'x' * (300 << 20)).hex(':')",
        "('a' * 1000).translate({97: 'b' * 10**7})",
    ] {
        let out = run(&mut w, attack);
        match &out.terminal {
            Terminal::Raised { exc_type, message, .. } if exc_type == "MemoryError" => {
                assert!(message.contains("beyond the run's memory limit"), "{attack}: {message}")
            }
            other => panic!("{attack}: {other}"),
        }
        still_alive(&mut w);
    }
    // What fits is untouched.
    let out = run(
        &mut w,
        "print(b''.replace(b'', b'z' * 10**7) == b'z' * 10**7, 'abc'.replace('b', 'xyz'), ','.join(x for x in 'abc'), \
         '{:>5}|{:.2}|{:5.1f}'.format(1, 'abcdef', 2.25), '%5s|%-4d|%.3f' % ('a', 2, 1.0), '%(k)3s' % {'k': 'q'}, \
         'ab'.translate({97: 'zz'}), b'ab'.hex(':'), f'{7:>{3}}', '%*d' % (-3, 1), '{:.1000000000}'.format('ab'), '%.1000000000s' % 'ab')",
    );
    assert_eq!(out.stdout, "True axyzc a,b,c     1|ab|  2.2     a|2   |1.000   q zzb 61:62   7 1   ab ab\n", "{}", out.terminal);
    // An int's precision is CPython's error, not a size.
    let out = run(&mut w, "format(1, '.1000000000')");
    assert!(
        matches!(&out.terminal, Terminal::Raised { exc_type, message, .. }
        if exc_type == "ValueError" && message.contains("Precision not allowed")),
        "{}",
        out.terminal
    );
}

#[test]
fn a_crash_with_a_huge_message_is_abbreviated() {
    let mut w = ThreadWorker::new(Config { debug_panic: true, ..Config::default() });
    let out = run(&mut w, "__stagecheck_panic__('p' * 10**7)");
    let Terminal::Crashed { message } = &out.terminal else { panic!("{}", out.terminal) };
    assert!(message.len() < 300 && message.contains(" chars, sha256 "), "{}", &message[..message.len().min(300)]);
    still_alive(&mut w);
}

#[test]
fn a_big_tensor_renders_its_first_elements() {
    let mut w = ThreadWorker::new(Config::default());
    let out = run(&mut w, "import stagecheck as sc\nx = sc.range(2000000)\ny = sc.zeros([2, 3])");
    assert_eq!(out.terminal, Terminal::Completed, "{}", out.stdout);
    let Value::Tensor { shape, values, .. } = global(&out, "x") else { panic!("{:?}", out.globals) };
    assert_eq!(shape, &[2_000_000]);
    let Value::List(items) = &**values else { panic!("{values}") };
    assert_eq!((items.len(), &items[4095], items.last()), (4097, &Value::Int("4095".into()), Some(&Value::Truncated)));
    assert!(json_size(&out) < 2 * MB, "{}", json_size(&out));
    // A small one is whole, nested as its shape.
    let Value::Tensor { values, .. } = global(&out, "y") else { panic!() };
    assert!(matches!(&**values, Value::List(rows) if rows.len() == 2 && !rows.contains(&Value::Truncated)), "{values}");
}
