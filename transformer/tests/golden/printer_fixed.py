def f(a, x):
    y = a[(1, 2):3]
    w = (v := (1, 2))
    z = 0.9999999999999999 + 1e-7
    match x:
        case [C()] | C(1, k=-1):
            s = f'{ y = }'
        case _:
            s = None
    return y, w, z, s
