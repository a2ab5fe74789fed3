# id: staged-print-002
# construct: print
# modes: original,unstaged,staged
# expect: agree
# about: print inside a staged function prints at every call, not once per trace (tf.function prints once)

import stagecheck as sc

@sc.function
def f(x):
    print('called')
    return x + 1

print(f(sc.constant(1)))
print(f(sc.constant(2)))
