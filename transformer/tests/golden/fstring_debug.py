def f(a, b):
    print(f"{f(a, b) = }", f'{a and b = !s:>{len(b)}}')
    return f'{a and b = }'
