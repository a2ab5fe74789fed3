# id: conv-scoping-016
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: a global declaration inside an if branch applies to the whole function, including the other branch and after a loop

mode = 'initial'
log = []


def configure(new):
    if new is None:
        log.append('reset')
    else:
        global mode
        for ch in new:
            log.append(ch)
    mode = new if new else 'default'
    return mode


print(configure('ab'), mode)
print(configure(None), mode)
print(log)
