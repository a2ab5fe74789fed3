def peek(x):
    if x:
        y = 2
    return locals()
