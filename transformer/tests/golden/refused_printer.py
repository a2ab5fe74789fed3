def f(a, b):
    return f'{a and b = }'
