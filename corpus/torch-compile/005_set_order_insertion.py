# id: torch-compile-005
# construct: set_order
# modes: original,compiled
# expect: diverged
# reason: open: stdout line 1: original "([64, 33, 100, 7, -5], 64)"; compiled "([7, 100, 64, -5, 33], 64)"
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: a set built from arguments iterates (and pops) in insertion order, not CPython's hash order
# origin: issue 35's prototype probe, written small by hand; the generator's set_order row prints it
# status: open
# torch-issue: not found (searched: set iteration order insertion; #153150 discusses set order in review)

def f(a, b):
    s = {a, 100, b, -5}
    s.add(33)
    return list(s), s.pop()


print(f(7, 64))
