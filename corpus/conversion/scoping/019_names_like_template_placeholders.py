# id: conv-scoping-019
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: user names spelled like the converter's template placeholders (NAME, BODY, OP, X, T, V, ...) stay the user's: templates are filled before user code is spliced in (a user `NAME = 1` in an if body once became `if_body = 1`)

def f(A, B):
    NAME = 0
    BODY = []
    OP = 'op'
    X = 1
    T = V = 2
    N = NAMES = ()
    GET, SET = 'g', 's'
    if A:
        NAME = 1
        BODY.append(X)
        OP = OP + '!'
    else:
        T = 3
    I = 0
    while I < B:
        I += 1
        COND = I % 2 == 0
        if COND:
            continue
        V = V + I
        if I > 6:
            break
    for ITR in range(B):
        TEST = ITR
        FLAG = ITR > 1 and not A
        N = N + (FLAG,)
    VALUE = X if A else T
    assert VALUE, MSG if (MSG := 'no') else 'x'
    F = lambda P0: P0 + NAME
    return NAME, BODY, OP, T, V, I, N, GET, SET, F(10), VALUE, NAMES


print(f(True, 9))
print(f(False, 3))
