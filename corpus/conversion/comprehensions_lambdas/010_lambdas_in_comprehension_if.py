# id: conv-comprehensions_lambdas-010
# construct: comprehensions_lambdas
# modes: original,unstaged,staged
# expect: agree
# about: lambdas in a comprehension's element and in its `if` that read the comprehension variable (RustPython 0.5 refused these: "the symbol 'c' must be present in the symbol table", its symbol table scanned the element first; patched in executor/vendor/rustpython-codegen), in list, set, dict and generator comprehensions, nested generators, and in a finally


def g(f):
    return f()


def h(*fs):
    return all(f() for f in fs)


def comprehensions(xs):
    return (
        [g(lambda: c) for c in xs if h(lambda: 8, lambda: c)],
        [(lambda: 8)() for c in xs if (lambda: c)()],
        [(lambda: c, lambda: 9)[0]() for c in xs if (lambda: c)()],
        {(lambda: c * 2)() for c in xs if (lambda: c > 1)()},
        {(lambda: c)(): (lambda: -c)() for c in xs if (lambda: c % 2)()},
        list((lambda: c + d)() for c in xs for d in xs if (lambda: d < c)()),
    )


def in_finally(xs):
    try:
        return 'try'
    finally:
        if xs:
            return [(lambda: 1)() for c in xs if (lambda: c)()]


print(comprehensions([0, 1, 2, 3]))
print(in_finally([0, 1, 2]), in_finally([]))
