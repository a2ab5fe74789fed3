# id: conv-lists_subscripts-001
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: append/pop/insert/extend inside loops; pop with index and from an empty list

def f():
    xs = []
    for i in range(5):
        xs.append(i * i)
    xs.insert(1, 'x')
    a = xs.pop()
    b = xs.pop(0)
    xs.extend([7, 8])
    try:
        [].pop()
    except IndexError as e:
        print(type(e).__name__, e)
    return xs, a, b


print(f())
