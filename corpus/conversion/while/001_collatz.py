# id: conv-while-001
# construct: while
# modes: original,unstaged
# expect: agree
# about: collatz step counting with a while loop and an if/else in its body

def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


lengths = {n: collatz_steps(n) for n in range(1, 12)}
print(lengths)
best = max(lengths, key=lambda k: lengths[k])
print('best', best, lengths[best])
