def odd_sum(xs):
    total = 0
    for i, x in enumerate(xs):
        if x % 2 == 0:
            continue
        total += x
    return total
