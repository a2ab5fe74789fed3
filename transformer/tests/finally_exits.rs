//! Exits inside `finally`: every `return`, `break` and `continue`
//! in a `finally`, whatever is in flight there (an exception, a return, a
//! break, a continue), in nested `try` statements, loops and handlers, is
//! converted, never refused, and the converted code exits from no `finally`
//! (its flags could not cancel an exception there). That the converted
//! programs mean what the originals do is checked by running them:
//! `tests/finally_exits.rs` of the root crate (against python3) and the
//! corpus (`corpus/conversion/finally_exits/`).

use ruff_python_ast::visitor::{walk_stmt, Visitor};
use ruff_python_ast::Stmt;

/// What the `try` in the loop has in flight when its `finally` runs.
const IN_FLIGHT: [&str; 5] = ["raise KeyError(i)", "return 'try', i", "break", "continue", "log.append(i)"];
/// The exit inside the `finally`.
const EXITS: [&str; 3] = ["return 'finally', i", "break", "continue"];

/// `f` with the `try` in a loop, the exit under a condition (so code after
/// it in the `finally` stays), and `shape` placing it: in the `finally`
/// itself, in a `try` inside it, in that `try`'s own `finally`, in a loop
/// inside it (a `return` only), or behind a handler.
fn program(in_flight: &str, exit: &str, shape: usize) -> String {
    let in_finally = match shape {
        0 => format!("if i == n:\n    {exit}\nlog.append('after')"),
        1 => format!("try:\n    if i == n:\n        {exit}\nexcept ValueError:\n    pass\nlog.append('after')"),
        2 => format!("try:\n    {in_flight}\nfinally:\n    if i == n:\n        {exit}\nlog.append('after')"),
        3 if exit.starts_with("return") => {
            format!("for j in range(3):\n    if j == n:\n        {exit}\nelse:\n    log.append('else')")
        }
        3 => format!("with cm:\n    if i == n:\n        {exit}"),
        _ => {
            format!("try:\n    raise ValueError\nexcept ValueError:\n    log.append('handled')\nelse:\n    {exit}\nif i == n:\n    {exit}")
        }
    };
    let indented: String = in_finally.lines().map(|l| format!("            {l}\n")).collect();
    format!(
        "def f(n, cm):\n    log = []\n    for i in range(3):\n        try:\n            {in_flight}\n        finally:\n{indented}    return log\n"
    )
}

/// The `return`, `break` and `continue` statements inside `finally` blocks
/// of `source`, outside the loops nested in them (those exit the loop, not
/// the block), and `return`s in loops too.
fn exits_in_finally(source: &str) -> Vec<String> {
    struct V {
        in_finally: bool,
        in_loop: bool,
        found: Vec<String>,
    }
    impl Visitor<'_> for V {
        fn visit_stmt(&mut self, s: &Stmt) {
            match s {
                Stmt::Return(_) if self.in_finally => self.found.push(format!("{s:?}")),
                Stmt::Break(_) | Stmt::Continue(_) if self.in_finally && !self.in_loop => self.found.push(format!("{s:?}")),
                // A nested function's body is another scope.
                Stmt::FunctionDef(f) => {
                    let outer = (self.in_finally, self.in_loop);
                    (self.in_finally, self.in_loop) = (false, false);
                    self.visit_body(&f.body);
                    (self.in_finally, self.in_loop) = outer;
                }
                Stmt::For(_) | Stmt::While(_) => {
                    let outer = self.in_loop;
                    self.in_loop = true;
                    walk_stmt(self, s);
                    self.in_loop = outer;
                }
                Stmt::Try(t) => {
                    self.visit_body(&t.body);
                    for h in &t.handlers {
                        self.visit_except_handler(h);
                    }
                    self.visit_body(&t.orelse);
                    let outer = (self.in_finally, self.in_loop);
                    (self.in_finally, self.in_loop) = (true, false);
                    self.visit_body(&t.finalbody);
                    (self.in_finally, self.in_loop) = outer;
                }
                _ => walk_stmt(self, s),
            }
        }
    }
    let module = ruff_python_parser::parse_module(source).expect("converted code parses");
    let mut v = V { in_finally: false, in_loop: false, found: Vec::new() };
    v.visit_body(module.suite());
    v.found
}

#[test]
fn the_test_finds_exits_in_finally_where_python_has_them() {
    // The check below would pass vacuously if it never saw an exit.
    let original = program("raise KeyError(i)", "break", 2);
    assert_eq!(exits_in_finally(&original).len(), 1, "{original}");
    let original = program("break", "return 'finally', i", 3);
    assert_eq!(exits_in_finally(&original).len(), 1, "{original}");
}

#[test]
fn every_exit_in_finally_is_converted_and_none_is_left_in_a_finally() {
    let mut count = 0;
    for in_flight in IN_FLIGHT {
        for exit in EXITS {
            for shape in 0..5 {
                let original = program(in_flight, exit, shape);
                assert!(!exits_in_finally(&original).is_empty(), "{original}");
                let converted = stagecheck_transformer::convert_verified(&original, "t.py").unwrap_or_else(|e| panic!("{e}\n{original}"));
                let left = exits_in_finally(&converted.source);
                assert!(left.is_empty(), "{left:?} left in a finally of\n{}\nfrom\n{original}", converted.source);
                count += 1;
            }
        }
    }
    assert_eq!(count, IN_FLIGHT.len() * EXITS.len() * 5);
}

#[test]
fn generators_keep_their_exits_in_finally_as_written() {
    // Their statements are not converted (moving a yield into a nested
    // function would change it), so Python's own exits stay, and no refusal.
    let original = "def g(n):\n    for i in range(n):\n        try:\n            yield i\n        finally:\n            if i == 2:\n                return\n            continue\n";
    let converted = stagecheck_transformer::convert_verified(original, "g.py").expect("converted");
    assert_eq!(exits_in_finally(&converted.source).len(), 2, "{}", converted.source);
}

#[test]
fn finally_blocks_holding_scopes_are_converted_too() {
    // They were kept as written (no lambdas, no converted statements) while
    // RustPython's compiler took the wrong symbol tables there.
    let original = "def f(xs):\n    try:\n        pass\n    finally:\n        g = lambda v: v\n        if xs and g(1):\n            print([x for x in xs if x or g(x)])\n";
    let converted = stagecheck_transformer::convert_verified(original, "s.py").expect("converted").source;
    for needle in ["ag__.if_stmt(", "ag__.and_("] {
        assert!(converted.contains(needle), "{needle} missing in\n{converted}");
    }
}
