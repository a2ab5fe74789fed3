# id: conv-break_continue-006
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: break in an inner loop only leaves the inner loop; outer loop continues

def pairs(n):
    out = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            out.append((i, j))
        out.append('|')
    return out


print(pairs(3))
