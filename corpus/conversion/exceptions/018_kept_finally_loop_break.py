# id: conv-exceptions-018
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: found by stagecheck fuzz (seed 42, index 11162): a finally kept as written (it holds a def) with a loop that breaks; the break was lowered to a flag whose test only the (skipped) control-flow pass would have added, so the loop ran on (5 for 0); kept blocks then kept their own break and continue (since issue 16 no finally is kept as written)

def f(p):
    out = []
    try:
        out.append(p)
    finally:
        n = 0
        while n < 5:
            out.append(n)
            break
        for k in range(4):
            if k == 1:
                continue
            out.append(k)
            if k >= 2:
                break
        fns = []
        for i in range(3):
            def h(x):
                return x + i
            fns.append(h)
        out.append([g(0) for g in fns])
    return out


print(f(9))
