# id: torch-compile-007
# construct: format_spec_dynamic
# modes: original,compiled
# expect: diverged
# reason: open: crashed in conversion: InternalTorchDynamoError: ValueError: Unknown format code 'd' for object of type 'str'
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: an f-string with an int format spec, once Dynamo makes its int argument dynamic (a second call with another value), fails inside Dynamo (InternalTorchDynamoError) instead of formatting
# origin: fuzz --target torch-compile --seed 35: converter-compiled-df364ec2, -ba46c6a2, -ba770d0a (codes d, f, e); written small by hand
# status: open
# torch-issue: known, open: pytorch/pytorch#197093 (f-string format spec on a SymInt)

def f(n):
    return f"{n:+05d}"


print(f(1), f(2))
