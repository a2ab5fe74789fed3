# id: autograph-015
# construct: locals_builtin
# modes: original,unstaged
# expect: diverged
# reason: open: global r differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: locals() in a converted function lists AutoGraph's own names (ag__, do_return, fscope, loop_body, get_state, ...); vars() without arguments, called through AutoGraph's converted_call, lists converted_call's locals instead (args, caller_fn_scope, f, kwargs, options)
# origin: fuzz --target autograph --seed 2101 (30 min, 2 jobs): reports/2026-11-26T04-58-12Z-autograph/findings/stdout-unstaged-5e7dd718 (print(sorted(locals()))), -deb22cf6 (print(sorted(vars()))), written small by hand
# status: open
# tf-issue: not found (searched tensorflow/tensorflow issues: autograph locals() returns internal variables ag__ do_return retval)

def f(n):
    total = 0
    for i in range(n):
        total += i
    return sorted(locals())


r = f(3)
