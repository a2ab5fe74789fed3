# id: torch-compile-004
# construct: builtin_message
# modes: original,compiled
# expect: diverged
# reason: open: stdout line 1: original "min() arg is an empty sequence"; compiled "min() iterable argument is empty"
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: min([]) raises ValueError with Dynamo's own message, not CPython's
# origin: issue 35's prototype probe (wrong messages from emulated builtins), written small by hand; the generator's builtin_errors row raises it
# status: open
# torch-issue: not found (searched: min() empty sequence message)

def f():
    try:
        return min([])
    except ValueError as e:
        return str(e)


print(f())
