# id: torch-compile-014
# construct: reduction
# modes: original,compiled
# expect: diverged
# reason: open: crashed in conversion: TorchRuntimeError: RuntimeError when making fake tensor call
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: an op that fails while Dynamo traces it (its fake tensors) reaches the program as TorchRuntimeError whatever the op raises: the mean of an int tensor raises NotImplementedError as written, and `except NotImplementedError` misses it compiled
# origin: fuzz --target torch-compile --seed 3535 (tensor family through the sc shim), findings converter-compiled-1166e3ef and 5 more, written small by hand
# status: open
# torch-issue: known: pytorch/pytorch#184340 and #184364 (closed: the same wrapping of IndexError); #169638 fixed it for RuntimeError inside a try in the compiled function only
import stagecheck as sc


@sc.function
def f(x):
    return sc.reduce_mean(sc.cast(x, sc.float32)) + sc.reduce_mean(x)


try:
    print(f(sc.constant([1, 2])))
except NotImplementedError as e:
    print('caught', type(e).__name__)
