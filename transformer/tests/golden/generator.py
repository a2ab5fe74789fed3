def gen(n):
    for i in range(n):
        if i > 2 and i % 2:
            return
        yield i * 2 if i else -1
