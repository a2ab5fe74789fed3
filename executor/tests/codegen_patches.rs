//! The fixes to RustPython's code generator for `finally` and `with`
//! (executor/vendor/rustpython-codegen/PATCHES.md), shown on the original
//! programs (no conversion): each prints what CPython 3.11 prints, checked by
//! hand with python3. The published code generator ran the inner `finally`
//! twice, unwound an inner loop's `finally` again at a `break` in it, and left
//! a suppressing `with`'s cleanup handler over the code after it.

mod common;

use common::stdout;

#[test]
fn finally_and_with_unwind_as_cpython() {
    let src = r#"
log = []


def f(n):
    try:
        try:
            return 'inner', n
        finally:
            log.append('inner finally')
    finally:
        log.append('outer finally')
        if n:
            return 'outer', n


for n in range(2):
    log.clear()
    print(f(n), log)


def g(n):
    for i in range(3):
        try:
            for j in range(2):
                try:
                    raise KeyError(j)
                finally:
                    log.append(('inner', i, j))
                    if j == n:
                        break
        finally:
            log.append(('outer', i))
            if i == 1:
                continue
    return i


log.clear()
print(g(0), log)


class S:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return True


def h():
    try:
        with S():
            raise KeyError(1)
        log.append('after with')
    finally:
        log.append('finally')


log.clear()
h()
print(log)


def k():
    try:
        with S():
            raise KeyError(1)
        raise ValueError(2)
    except ValueError as e:
        return repr(e), repr(e.__context__)


print(k())


def m():
    for i in range(3):
        try:
            with S():
                if i == 1:
                    continue
                raise KeyError(i)
            log.append(('after', i))
        finally:
            log.append(('finally', i))
    try:
        raise ValueError('x')
    except ValueError as e:
        return repr(e.__context__)


log.clear()
print(m(), log)
"#;
    assert_eq!(
        stdout(src),
        r#"('inner', 0) ['inner finally', 'outer finally']
('outer', 1) ['inner finally', 'outer finally']
2 [('inner', 0, 0), ('outer', 0), ('inner', 1, 0), ('outer', 1), ('inner', 2, 0), ('outer', 2)]
['after with', 'finally']
('ValueError(2)', 'None')
None [('after', 0), ('finally', 0), ('finally', 1), ('after', 2), ('finally', 2)]
"#
    );
}

/// Sub-tables are matched to nested scopes in the order they are compiled:
/// an assignment's value is compiled before its targets, so its lambdas'
/// tables must come first (a fuzz finding: converted code reads a loop
/// body's variables through lambdas, in slice targets too).
#[test]
fn lambdas_in_an_assignment_value_and_target_compile() {
    let src = "def a(b):\n    x = [0, 0]\n    x[(lambda: b)():] = [(lambda: 5)()]\n    return x\nprint(a(1))\n";
    assert_eq!(stdout(src), "[0, 5]\n");
}

/// The converter's scaffolding is transparent to qualnames (compile.rs
/// `converter_runtime`, `make_qualname`; transformer `scaffold.rs`): in a
/// module whose first statement binds stagecheck's runtime as the builtin
/// `R`, a function beginning with `global R` and a lambda passed straight
/// to `R.<op>` are skipped when their children's qualnames are made; the
/// scaffolding's own qualnames, and every program without that header, are
/// as before.
#[test]
fn the_converters_scaffolding_is_transparent_to_qualnames() {
    let body = r#"
def f():
    def loop_body():
        global ag__

        def g():
            pass

        class C:
            def m(self):
                pass

        def if_body():
            global ag__
            return lambda: 0
        thunked = ag__.and_(lambda: 1, lambda: lambda: 2)
        direct = ag__.converted_call(lambda: lambda: 3)()
        return g, C, C.m, if_body(), (x for x in ()), thunked, direct, loop_body, if_body

    def plain():
        return lambda: 4
    return loop_body() + (plain(),)


for v in f():
    print(v.__qualname__)
"#;
    let converted = format!("__import__('stagecheck').ag.bind('ag__')\n{body}");
    assert_eq!(
        stdout(&converted),
        "f.<locals>.g
f.<locals>.C
f.<locals>.C.m
f.<locals>.<lambda>
f.<locals>.<genexpr>
f.<locals>.<lambda>
f.<locals>.<lambda>
f.<locals>.loop_body
f.<locals>.if_body
f.<locals>.plain.<locals>.<lambda>
"
    );
    // Bound to another name (as in the conversion of a program that has an
    // `ag__` of its own), nothing is transparent. The lambda passed straight to `converted_call` above was
    // taken for a thunk: the converter passes a program's lambda with
    // children there as `(lambda: ...,)[0]`.
    let as_written = "f.<locals>.loop_body.<locals>.g
f.<locals>.loop_body.<locals>.C
f.<locals>.loop_body.<locals>.C.m
f.<locals>.loop_body.<locals>.if_body.<locals>.<lambda>
f.<locals>.loop_body.<locals>.<genexpr>
f.<locals>.loop_body.<locals>.<lambda>.<lambda>
f.<locals>.loop_body.<locals>.<lambda>.<lambda>
f.<locals>.loop_body
f.<locals>.loop_body.<locals>.if_body
f.<locals>.plain.<locals>.<lambda>
";
    let renamed = format!("__import__('stagecheck').ag.bind('other__')\nag__ = other__\n{body}");
    assert_eq!(stdout(&renamed), as_written);
}

/// A boolean operation of many operands compiles in time and memory linear
/// in its jumps: the published crate's `split_blocks_at_jumps` copied each
/// remaining tail at every jump (2,000 operands of `or` ran out of 512 MiB).
/// CPython 3.11 prints the same.
#[test]
fn long_boolean_chains_compile_in_linear_space() {
    let src = "x = 0\nprint(eval('x or ' * 50000 + '7'), eval('not x and ' * 50000 + '8'))\n";
    assert_eq!(stdout(src), "7 8\n");
}
