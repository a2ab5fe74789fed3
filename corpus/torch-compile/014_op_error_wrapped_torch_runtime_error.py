# id: torch-compile-014
# construct: reduction
# modes: original,compiled
# expect: diverged
# reason: open: crashed in conversion: TorchRuntimeError: RuntimeError when making fake tensor call (the program's handler prints RuntimeError as written)
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: an op that fails while Dynamo traces it (its fake tensors) reaches the program as TorchRuntimeError, not what the op raises: a matmul of mismatched shapes raises RuntimeError as written (a NotImplementedError, the mean of an int tensor, likewise, and `except NotImplementedError` misses it); an IndexError passes through since #184340
# origin: fuzz --target torch-compile --seed 3535 (tensor family through the sc shim), findings converter-compiled-1166e3ef and 5 more, written small by hand
# status: open
# torch-issue: known: pytorch/pytorch#184340 and #184364 (closed: the same wrapping of IndexError); #169638 fixed it for RuntimeError inside a try in the compiled function only
import stagecheck as sc


@sc.function
def f(x):
    return sc.matmul(x, sc.ones([3], sc.int32))


try:
    print(f(sc.constant([1, 2])))
except RuntimeError as e:
    print('caught', type(e).__name__)
