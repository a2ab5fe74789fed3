# id: staged-errors-001
# construct: errors
# modes: original,unstaged,staged
# expect: agree
# about: an op error raised while tracing is the eager error, same type and message

import stagecheck as sc

@sc.function
def f(a, b):
    return sc.matmul(a, b)

print(f(sc.constant([[1.0, 2.0]]), sc.constant([[1.0], [2.0]])))
f(sc.constant([[1.0, 2.0]]), sc.constant([[1.0, 2.0]]))
