"""stagecheck's runtime, as programs see it: `import stagecheck as sc`.

- Tensors with TensorFlow's names (`sc.constant`, `sc.matmul`, `sc.int32`,
  ...): `stagecheck.tensor`, over the native module `_stagecheck_tensor`.
- `sc.function` marks a function for staging (TensorFlow's `tf.function`):
  the identity in the original and unstaged modes, traced into a graph and
  run by the graph executor in the staged mode (`stagecheck.staging`).
- `sc.ag` holds the operators that converted code calls (AutoGraph's
  `ag__`); a converted module starts with `__import__('stagecheck').ag.bind('ag__')`,
  which makes it the builtin `ag__` (no global of the program).
"""

from stagecheck import ag
from stagecheck import nn
from stagecheck.tensor import (
    Tensor, DType, StagingError, bool, int32, int64, float32, float64,
    constant, convert_to_tensor, zeros, ones, range, eye, matmul,
    reduce_sum, reduce_max, reduce_min, reduce_mean, argmax, where, cast,
    reshape, transpose, concat, stack, exp, log, sqrt, tanh, sigmoid, abs,
    maximum, minimum, print, Variable, py_function,
)
from stagecheck.staging import function, Function, device
from stagecheck.gradients import GradientTape, stop_gradient
