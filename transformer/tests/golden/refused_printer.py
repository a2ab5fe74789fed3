def f(a, x):
    y = a[(1, 2):3]
    w = (v := (1, 2))
    return y, w
