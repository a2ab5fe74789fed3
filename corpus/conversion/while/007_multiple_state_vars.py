# id: conv-while-007
# construct: while
# modes: original,unstaged
# expect: agree
# about: several loop-carried variables, some modified only conditionally (fibonacci + even sum)

def fib_stats(limit):
    a, b = 0, 1
    even_sum = 0
    count = 0
    largest_odd = None
    while a < limit:
        if a % 2 == 0:
            even_sum += a
        else:
            largest_odd = a
        a, b = b, a + b
        count += 1
    return count, even_sum, largest_odd


print(fib_stats(100))
print(fib_stats(1))
print(fib_stats(0))
