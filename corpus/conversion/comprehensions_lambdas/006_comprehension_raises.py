# id: conv-comprehensions_lambdas-006
# construct: comprehensions_lambdas
# modes: original,unstaged
# expect: agree
# about: an exception in the middle of a comprehension propagates; no partial result is assigned

def parse_all(items):
    result = 'unassigned'
    try:
        result = [int(s) for s in items]
    except ValueError as e:
        print(type(e).__name__, e)
    return result


def f():
    seen = []
    try:
        data = {k: 10 // v for k, v in [('a', 1), ('b', 0)] if not seen.append(k)}
    except ZeroDivisionError as e:
        print(type(e).__name__, seen)
        data = None
    return data


print(parse_all(['1', '2']))
print(parse_all(['1', 'x', '3']))
print(f())
