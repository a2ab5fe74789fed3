# id: torch-compile-010
# construct: round_dynamic
# modes: original,compiled
# expect: diverged
# reason: open: stdout line 1: original "0 80 0"; compiled "0 84 1"
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: round(n, -1) of an int Dynamo made dynamic (a second call with another value) returns n unrounded
# origin: fuzz --target torch-compile --seed 37 (10 min, 1 job): stdout-compiled-4d44d76d and -95c397b1, reduced by stagecheck reduce (to 3 and 4 lines), written as one
# status: open
# torch-issue: not found (searched: round negative ndigits SymInt; related: the review of pytorch/pytorch#115259 doubts RoundDecimal's ranges for negative ndigits)

def f(n):
    return round(n, -1)


print(f(0), f(84), f(1))
