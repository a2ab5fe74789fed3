# id: conv-exceptions-020
# construct: exceptions
# modes: original,unstaged,staged
# expect: agree
# about: a lambda after a nested comprehension in a finally (compiled twice): RustPython 0.5 gave the lambda the comprehension's symbol table (a stray local '.0'; with a return in the try it failed to compile); patched in executor/vendor/rustpython-codegen

def f(rows, early):
    try:
        if early:
            return 'early'
    finally:
        flat = [[c * 2 for c in r] for r in rows]
        g = lambda: len(flat)
        print(flat, g(), g.__code__.co_varnames, g.__code__.co_argcount)
    return 'late'


print(f([[1, 2], [3]], True), f([[4]], False))
