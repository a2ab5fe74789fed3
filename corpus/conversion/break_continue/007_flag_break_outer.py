# id: conv-break_continue-007
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: breaking out of two nested loops with a flag variable; for/else on the inner loop

def find_pair(xs, target):
    found = None
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if xs[i] + xs[j] == target:
                found = (i, j)
                break
        else:
            continue
        break
    return found


print(find_pair([1, 4, 6, 9], 10))
print(find_pair([1, 4, 6, 9], 100))
print(find_pair([5, 5], 10))
