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
