def pick(a, b, c):
    ok = a and not b or c
    inside = 0 < a < 10
    return b if ok else c, inside
