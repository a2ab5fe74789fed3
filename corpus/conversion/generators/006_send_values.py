# id: conv-generators-006
# construct: generators
# modes: original,unstaged
# expect: agree
# about: send() into a running-average generator; the first send must be None

def averager():
    total = 0
    count = 0
    avg = None
    while True:
        x = yield avg
        if x is None:
            break
        total += x
        count += 1
        avg = total / count
    return count


def run():
    g = averager()
    print(next(g))
    out = [g.send(v) for v in (10, 20, 60)]
    try:
        g.send(None)
    except StopIteration as e:
        out.append(('count', e.value))
    g2 = averager()
    try:
        g2.send(5)
    except TypeError as e:
        out.append(type(e).__name__)
    return out


print(run())
