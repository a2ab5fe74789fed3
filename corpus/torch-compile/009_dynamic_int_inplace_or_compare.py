# id: torch-compile-009
# construct: dynamic_int_compare
# modes: original,compiled
# expect: diverged
# reason: open: stdout line 1: original "not taken not taken not taken"; compiled "not taken taken taken"
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: once Dynamo makes an int argument dynamic (a second call with another value), `b |= 0` then `b < b` is true: the branch is taken
# origin: fuzz --target torch-compile --seed 36 (10 min, 1 job): stdout-compiled-eec1965d, reduced by stagecheck reduce (93 to 7 lines), then by hand
# status: open
# torch-issue: not found (searched: SymInt in-place or comparison wrong branch)

def a(b):
    b |= 0
    if b < b:
        return "taken"
    return "not taken"


print(a(0), a(1), a(2))
