# id: conv-finally_exits-004
# construct: finally_exits
# modes: original,unstaged,staged
# expect: agree
# about: exits in finally across nested try statements: an inner try's return overridden by the outer finally's, a try inside finally whose body returns and whose own finally breaks, a return from a loop inside finally, a finally that raises after an exit (the exit is cancelled), and exits of inner loops inside finally that leave nothing

log = []


def inner_then_outer(n):
    try:
        try:
            if n == 1:
                return 'inner body', n
            raise ValueError('inner')
        finally:
            log.append('inner finally')
    finally:
        log.append('outer finally')
        if n > 1:
            return 'outer', n


def try_inside_finally(n):
    for i in range(3):
        try:
            raise KeyError(i)
        finally:
            try:
                if i >= n:
                    return 'inner try', i
            finally:
                if i == 1:
                    break
    return 'after loop', i


def loop_inside_finally(n):
    try:
        return 'try'
    finally:
        for j in range(4):
            if j == n:
                return 'loop', j
            for k in range(3):
                if k == 1:
                    break
            log.append((j, k))
        else:
            log.append('loop else')


def raise_cancels_exit(n):
    try:
        try:
            return 'kept?'
        finally:
            try:
                return 'finally return'
            finally:
                if n % 2:
                    raise RuntimeError(n)
    except RuntimeError as e:
        return 'caught', repr(e)


def exception_through_inner_handler(n):
    for i in range(3):
        try:
            try:
                raise ValueError(i)
            except KeyError:
                log.append('wrong handler')
        finally:
            if i < n:
                continue
    return 'done', i


for n in range(3):
    try:
        print(n, inner_then_outer(n))
    except ValueError as e:
        print(n, 'raised', repr(e))
    try:
        print(n, try_inside_finally(n))
    except KeyError as e:
        print(n, 'raised', repr(e))
    print(n, loop_inside_finally(n), raise_cancels_exit(n))
    try:
        print(n, exception_through_inner_handler(n))
    except ValueError as e:
        print(n, 'raised', repr(e))
print(log)
