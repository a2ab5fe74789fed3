# id: conv-lists_subscripts-005
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: slice reads, slice assignment that changes length, del of slices, negative steps

def f():
    xs = list(range(10))
    a = xs[2:5]
    b = xs[::-3]
    xs[1:3] = ['a', 'b', 'c', 'd']
    del xs[::4]
    xs[-2:] = []
    s = 'abcdef'
    return a, b, xs, s[1:-1:2], s[::-1][:3]


print(f())
