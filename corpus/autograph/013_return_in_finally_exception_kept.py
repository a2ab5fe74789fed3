# id: autograph-013
# construct: finally_return
# modes: original,unstaged
# expect: diverged
# reason: open: global r differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: a return in a finally clause cancels the exception in flight in Python (the function returns); converted, the exception still propagates out of the function
# origin: fuzz --target autograph --seed 2101 (30 min, 2 jobs): reports/2026-11-26T04-58-12Z-autograph/findings/stdout-unstaged-216ab0d4 (reduced: `try: raise Boom()` / `finally: return 0`), written small by hand
# status: open
# tf-issue: not found (searched tensorflow/tensorflow issues: autograph return in finally block exception not suppressed; tf.function autograph try finally return)

def f():
    try:
        raise KeyError('k')
    finally:
        return 'finally returned'


try:
    r = f()
except KeyError:
    r = 'raised'
