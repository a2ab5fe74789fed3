//! The runtime is not visible to converted programs: a converted
//! module binds the operators as a builtin (`ag.bind`), not a global, and
//! the builtin is gone by the next run of the same worker.

use stagecheck::executor::{Config, Terminal};
use stagecheck::worker::Worker;
use stagecheck_transformer::convert;

const PROGRAM: &str = "def f(n):\n    for i in range(n):\n        n += i\n    return n\n\nprint(f(3), sorted(globals()), dir())\nprint(hasattr(__builtins__, 'ag__') or 'ag__' in getattr(__builtins__, 'keys', list)())\n";

#[test]
fn the_runtime_is_a_builtin_of_the_converted_run_only() {
    let conversion = convert(PROGRAM, "p.py").expect("converts");
    assert!(!conversion.source.contains("import ag"), "{}", conversion.source);
    let mut worker = Worker::new(Config::default());
    let converted = worker.run(&conversion.source, "p.py").expect("compiles");
    assert_eq!(converted.terminal, Terminal::Completed);
    assert_eq!(converted.stdout, "6 ['__builtins__', '__name__', 'f'] ['__builtins__', '__name__', 'f']\nTrue\n");
    assert!(converted.globals.iter().all(|(name, _)| name != &conversion.runtime_name), "{:?}", converted.globals);
    // The same worker, next run: builtins restored.
    let original = worker.run(PROGRAM, "p.py").expect("compiles");
    assert_eq!(original.stdout, "6 ['__builtins__', '__name__', 'f'] ['__builtins__', '__name__', 'f']\nFalse\n");
}
