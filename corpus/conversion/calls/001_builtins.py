# id: conv-calls-001
# construct: calls
# modes: original,unstaged
# expect: agree
# about: builtins print/len/range/int/float/abs/min/max/enumerate/zip/sorted/sum with keyword arguments

def f():
    xs = [3, -7, 2]
    print(len(xs), list(range(2, 9, 3)), int('42'), int('ff', 16), float('1.5'), abs(-7), abs(-2.5))
    print(min(xs), max(xs), min(xs, key=abs), max([], default='empty'), max(1, 5, 3))
    print(list(enumerate('ab', start=5)), list(zip(xs, 'abc', range(10))))
    print(sorted(xs, reverse=True), sum(xs, 100), round(2.675, 2), divmod(-7, 2))
    print('a', 'b', sep='-', end='!\n')
    return int(float('7.9')), int(-3.9), float(3)


print(f())
