# id: torch-compile-008
# construct: format_dynamic
# modes: original,compiled
# expect: diverged
# reason: open: crashed in conversion: InternalTorchDynamoError: AsPythonConstantNotImplementedError: SymNodeVariable() is not a constant
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: format(n, spec) on an int Dynamo made dynamic (a second call with another value) fails inside Dynamo, even under the program's own except
# origin: issue 35's first probe, written small by hand
# status: open
# torch-issue: related: the review of pytorch/pytorch#144956 (format() does not support dynamic shapes); no issue found

def f(n):
    return format(n, "08b")


try:
    print(f(5), f(6))
except Exception as e:
    print("caught", type(e).__name__)
