# id: conv-exceptions-002
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: break in except, continue in else, inside a for loop with finally

def f(items):
    log = []
    for it in items:
        try:
            v = int(it)
        except ValueError:
            log.append('bad ' + it)
            if it == 'stop':
                break
            continue
        else:
            if v < 0:
                continue
            log.append(v)
        finally:
            log.append('.')
    return log


print(f(['1', 'x', '-2', '3', 'stop', '4']))
