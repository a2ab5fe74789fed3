# id: torch-compile-006
# construct: unbound_message
# modes: original,compiled
# expect: diverged
# reason: open: stdout line 1: original "UnboundLocalError cannot access local variable 'c' where it is not associated with a value"; compiled "NameError cannot access free variable 'c' ..."
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: reading a local that a walrus in a comprehension never bound raises NameError (free variable) instead of UnboundLocalError
# origin: fuzz --target torch-compile --seed 35 (10 min, 1 job): stdout-compiled-57bfb68a, reduced by stagecheck reduce (350 to 7 lines); the prototype's one silent kind
# status: open
# torch-issue: not found (searched: walrus comprehension UnboundLocalError NameError free variable)

def a():
    {0: (c := 0) for b in ""}
    try:
        c
    except NameError as d:
        print(type(d).__name__, d)


a()
