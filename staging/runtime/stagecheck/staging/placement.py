"""`sc.device`: where staged calls' graphs run."""

import _stagecheck_tensor as _n


class device:
    """`with sc.device('gpu'):` (TensorFlow's `tf.device`, seed 002 §4.4):
    the graphs of staged calls inside run on the GPU, values kept on the
    device between nodes, conds and loops decided on the host. Eager ops
    run on the CPU whatever the device. Without a Vulkan adapter, graphs run
    on the CPU (soft placement: the program computes the same). Names:
    'cpu', 'gpu', '/gpu:0', '/device:GPU:0'."""

    def __init__(self, name):
        self._name = name
        self._saved = []

    def __enter__(self):
        self._saved.append(_n.set_device(self._name))
        return self

    def __exit__(self, *exc):
        _n.set_device(self._saved.pop())
        return False
