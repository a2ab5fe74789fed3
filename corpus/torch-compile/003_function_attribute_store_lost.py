# id: torch-compile-003
# construct: function_attribute
# modes: original,compiled
# expect: diverged
# reason: open: stdout line 1: original "1 3"; compiled "1 2"
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: a compiled function storing an attribute on itself (its global name) loses the store between calls: the second call reads a stale value
# origin: issue 35's prototype probe, written small by hand; the generator's function_attrs row does this
# status: open
# torch-issue: not found (searched: function attribute store lost between calls; nearest #176851, a class attribute)

def f(n):
    f.calls = getattr(f, "calls", 0) + n
    return f.calls


print(f(1), f(2))
