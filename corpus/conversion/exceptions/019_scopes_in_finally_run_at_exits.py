# id: conv-exceptions-019
# construct: exceptions
# modes: original,unstaged,staged
# expect: agree
# about: functions, lambdas and comprehensions in a finally that a return, break or continue runs (RustPython 0.5 refused these: "no symbol table available"; patched in executor/vendor/rustpython-codegen)

def ret(x):
    try:
        return x
    finally:
        def twice(v):
            return 2 * v
        log.append(twice(x))


def brk():
    for i in range(3):
        try:
            if i == 1:
                break
        finally:
            log.append([j * i for j in range(2)])
            log.append(sorted({j for j in range(i + 1)}))
    return i


def cont():
    n = 0
    while n < 3:
        n += 1
        try:
            if n % 2:
                continue
        finally:
            log.append((lambda k: k + n)(10))
    return n


log = []
print(ret(5), brk(), cont(), log)
