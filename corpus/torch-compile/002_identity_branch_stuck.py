# id: torch-compile-002
# construct: identity_guard
# modes: original,compiled
# expect: diverged
# reason: open: stdout line 1: original "A other A"; compiled "A A A"
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: a branch on `x is A` (A a global list) takes its first path for every later argument: no guard on the identity it tested
# origin: issue 35's prototype probe, written small by hand
# status: open
# torch-issue: likely known: pytorch/pytorch#196173 (open: wrong results for control flow on mutable object identity)

A = [1]
B = [1]


def f(x):
    if x is A:
        return "A"
    return "other"


print(f(A), f(B), f(A))
