# id: staged-guards-014
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a builtin read by a helper of a staged function, then shadowed by a global of the same name: the new global is read

import stagecheck as sc
def size(v):
    return len(v)


@sc.function
def f(x):
    return x + size([1, 2])


x = sc.constant(1)
print(f(x))


def len(v):
    return 10


print(f(x))
