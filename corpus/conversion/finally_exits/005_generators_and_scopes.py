# id: conv-finally_exits-005
# construct: finally_exits
# modes: original,unstaged,staged
# expect: agree
# about: exits in finally in generators (kept as written: their statements are not converted), and finally blocks holding a def, a lambda and comprehensions next to exits (converted now; RustPython compiles them since the codegen fixes)

log = []


def gen(n):
    for i in range(4):
        try:
            yield i
            if i == n:
                raise ValueError(i)
        finally:
            if i == n:
                return
            if i == 1:
                continue


def scopes(n):
    for i in range(4):
        try:
            if i == n:
                return 'try', i
            raise KeyError(i)
        finally:
            def twice(v):
                return 2 * v
            log.append([twice(j) for j in range(i) if (lambda: j % 2)()])
            log.append({j: (lambda: j)() for j in range(i)})
            if (lambda: i > 1)():
                return 'finally', i, twice(i)
            if i:
                continue
            log.append(i and (i > 1 or n))


for n in range(4):
    print(n, list(gen(n)))
    try:
        print(n, scopes(n))
    except KeyError as e:
        print(n, 'raised', repr(e))
print(log)
