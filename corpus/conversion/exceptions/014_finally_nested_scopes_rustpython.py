# id: conv-exceptions-014
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: found by stagecheck fuzz (plain family, seed 1, indexes 622 and 1302): lambdas the converter would add in a finally block that holds a nested comprehension, or whose try returns, break RustPython 0.5's compiler ("no symbol table available", "the symbol 'ag__' must be present in the symbol table"); finally blocks kept their expressions as written until the codegen fixes, and are converted since issue 16

def gen(p):
    try:
        return
        yield 1
    finally:
        p = (p or 1) if p else -1


def f(xs, limit):
    out = []
    try:
        out.append(sum(1 for x in xs if x > limit))
        raise ValueError('done')
    except ValueError as e:
        out.append(str(e))
    finally:
        out.append([len([y for y in xs if y]) for _ in range(2)])
        out.append(limit > 0 and len(out) or -1)
    return out


print(list(gen(0)), list(gen(3)))
print(f([1, 5, 0, 7], 2), f([], -1))
