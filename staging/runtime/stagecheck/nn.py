"""`sc.nn`: TensorFlow's `tf.nn` names."""

from stagecheck.tensor import relu, sigmoid, tanh
