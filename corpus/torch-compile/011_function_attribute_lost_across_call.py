# id: torch-compile-011
# construct: function_attribute
# modes: original,compiled
# expect: diverged
# reason: open: terminal: original completed; compiled raised AttributeError
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: an attribute stored on a compiled function (a.calls = 0) is gone after a call Dynamo does not trace whole (a generator defining a class): reading it raises AttributeError
# origin: fuzz --target torch-compile --seed 37: terminal-compiled-8b82f4b5, reduced by stagecheck reduce (to 10 lines); the kind of 003 (a store to a function's attribute lost), another shape
# status: open
# torch-issue: not found (as 003)

def a():
    def b():
        class c:
            pass
        yield 0
    return sum(b())


def d():
    a.calls = 0
    a()
    return a.calls


print(d())
