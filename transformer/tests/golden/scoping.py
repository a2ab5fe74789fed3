count = 0

def counters(n):
    global count
    fs = []
    total = 0
    def add(k):
        nonlocal total
        total += k
    for i in range(n):
        fs.append(lambda: i)
        add(i)
        count += 1
    return [f() for f in fs], total
