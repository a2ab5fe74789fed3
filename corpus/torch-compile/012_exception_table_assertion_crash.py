# id: torch-compile-012
# construct: exception_table
# modes: original,compiled
# expect: diverged
# reason: open: crashed in conversion: AssertionError: exception table entry start instruction has no offset
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: Dynamo's bytecode transformation asserts on a function with a graph break (print) before a nested try/except-return inside try/finally; the program itself raises (NameError), which CPython reports
# origin: fuzz --target torch-compile --seed 35: converter-compiled-7fc310b0 (8 of seed 35's findings, 6 of seed 37's, 30 of the prototype's), reduced by stagecheck reduce (112 to 91, then 22 lines), line deletion (17) and reduce again (15)
# status: open
# torch-issue: not found (searched: exception table entry start instruction has no offset)

g0 = 0
g1 = 0


def f2(p3):
    print(0)
    try:
        try:
            v4 %= 0
        except 0 as e27:
            return len([0, 0, 0][0:0]) % 0
    finally:
        list(gen28((0 if 0 < g1 else g0) % 0, len(str(0 - g1).zfill(0)) % 0))
        if '' ** 0 % 0 in {'' ** 0 % 0, 0 if g0 > 0 else 0, 0} ^ set([0][0:]):
            pass
        (sum(gen28(g0, 2)) % 1000) ** 3 % 1000 % 1000


print('f2', f2((g0 if g1 >= 9 and 12 == -3 or g1 != -3 else abs(g1)) % 1000))
