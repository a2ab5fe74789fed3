# id: conv-return-001
# construct: return
# modes: original,unstaged
# expect: agree
# about: return from the innermost of three nested loops stops all of them

def find3(target):
    visited = 0
    for a in range(1, 6):
        for b in range(a, 6):
            for c in range(b, 6):
                visited += 1
                if a * a + b * b == c * c and a + b + c == target:
                    print('visited', visited)
                    return a, b, c
    print('visited', visited)
    return None


print(find3(12))
print(find3(13))
