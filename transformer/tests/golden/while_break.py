def first_square_over(limit):
    n = 0
    while n * n <= limit:
        if n > 100:
            break
        n += 1
    else:
        print('no break')
    return n
