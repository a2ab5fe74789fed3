# id: staged-print-001
# construct: print
# modes: original,unstaged,staged
# expect: agree
# about: AutoGraph's print example: print and sc.print in a staged while loop print once per iteration, in order with the program's own output, with sep and end

import stagecheck as sc

@sc.function
def count_down(n):
    i = n
    while i > 0:
        print('i =', i)
        sc.print('i', i * 10, sep=': ')
        i = i - 1
    print('done', i, end='!\n')
    return i

print('first call')
count_down(sc.constant(3))
print('second call')
r = count_down(sc.constant(2))
print('returned', r)
