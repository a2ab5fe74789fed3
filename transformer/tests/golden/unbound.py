def maybe(flag):
    if flag:
        y = 1
    while flag:
        print(y)
        flag = False
    return y
