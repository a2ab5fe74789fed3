# id: conv-scoping-018
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: user locals named like typical converter helpers (body, orelse, test, cond, loop_body, retval_, ag__, stagecheck, nonlocal-ish names) do not collide

def f(n):
    body = 'user body'
    orelse = []
    test = 0
    cond = lambda x: x < n
    loop_body = 0
    retval_ = 'user retval'
    do_return = False
    ag__ = {'k': 1}
    stagecheck = 'shadow'
    _if = 'if!'
    i = 0
    while cond(i):
        if i % 2:
            orelse.append(i)
        else:
            test += i
        loop_body += 1
        i += 1
    for body_var in range(2):
        do_return = not do_return
    return body, orelse, test, loop_body, retval_, do_return, ag__['k'], stagecheck, _if


print(f(5))
