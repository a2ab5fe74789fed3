# id: conv-while-004
# construct: while
# modes: original,unstaged
# expect: agree
# about: binary search with a while loop that returns from inside the body

def bsearch(xs, target):
    lo, hi = 0, len(xs) - 1
    probes = 0
    while lo <= hi:
        mid = (lo + hi) // 2
        probes += 1
        if xs[mid] == target:
            return mid, probes
        elif xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1, probes


data = [1, 3, 4, 7, 9, 11, 15, 20, 22]


def main():
    for t in (1, 9, 22, 8, 0, 30):
        print(t, bsearch(data, t))


main()
