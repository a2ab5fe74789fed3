# Longest Collatz chain below 30: a small program with loops, a function,
# a dict and output, to show what `stagecheck run` reports.
def chain(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps

lengths = {n: chain(n) for n in range(1, 30)}
best = max(lengths, key=lengths.get)
print("longest chain below 30 starts at", best, "with", lengths[best], "steps")
