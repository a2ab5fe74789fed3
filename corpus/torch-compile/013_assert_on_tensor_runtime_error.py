# id: torch-compile-013
# construct: staged_assert
# modes: original,compiled
# expect: diverged
# reason: open: stdout line 1: original "raised AssertionError check failed"; compiled "raised RuntimeError check failed"
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: an `assert` on a tensor in a compiled function raises RuntimeError, not AssertionError: Dynamo rewrites it to torch._assert (rewrite_assert_with_torch_assert), so `except AssertionError` no longer catches it
# origin: fuzz --target torch-compile --seed 3535 (tensor family through the sc shim), finding stdout-compiled-c3ff96ed, written small by hand
# status: open
# torch-issue: related: pytorch/pytorch#147282 (its comments show the RuntimeError with backend eager; the issue is about an assert not firing); by design of rewrite_assert_with_torch_assert, no issue on the exception's type found
import stagecheck as sc


@sc.function
def f(x):
    assert x > 5, 'check failed'
    return x


try:
    f(sc.constant(1))
except Exception as e:
    print('raised', type(e).__name__, e)
