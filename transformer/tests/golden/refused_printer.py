def f(a, b):
    x = 1
    return t'{a and b = }'
