# id: staged-seeds-009
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: AutoGraph §8's dynamic_rnn: a for over sc.range(max_len) with a run-time bound, a Python helper cell, sequence masking with where; outputs collected by a one-hot update instead of a TensorArray

import stagecheck as sc

T, BATCH, IN, HIDDEN = 6, 3, 4, 5


def weights(rows, cols, k):
    return sc.reshape(sc.cast(sc.range(rows * cols) % k, sc.float32) * 0.125 - 0.25, (rows, cols))


def rnn_cell(x, state, W, U, b):
    h = sc.tanh(sc.matmul(x, W) + sc.matmul(state, U) + b)
    return h, h


@sc.function
def dynamic_rnn(input_data, initial_state, sequence_len, W, U, b):
    input_data = sc.transpose(input_data, (1, 0, 2))
    state = initial_state
    max_len = sc.reduce_max(sequence_len)
    outputs = sc.zeros((T, BATCH, HIDDEN))
    for i in sc.range(max_len):
        prev_state = state
        output, state = rnn_cell(input_data[i], state, W, U, b)
        keep = sc.reshape(i < sequence_len, (BATCH, 1))
        state = sc.where(keep, state, prev_state)
        here = sc.reshape(sc.cast(sc.range(T) == i, sc.float32), (T, 1, 1))
        outputs = outputs + here * output
    return sc.transpose(outputs, (1, 0, 2)), state


x = sc.reshape(sc.cast(sc.range(BATCH * T * IN) % 5, sc.float32) * 0.5 - 1.0, (BATCH, T, IN))
W, U = weights(IN, HIDDEN, 7), weights(HIDDEN, HIDDEN, 5)
b = sc.constant([0.1, -0.1, 0.0, 0.2, -0.2])
outputs, state = dynamic_rnn(x, sc.zeros((BATCH, HIDDEN)), sc.constant([6, 2, 4]), W, U, b)
print(outputs)
print(state)
outputs, state = dynamic_rnn(x, sc.ones((BATCH, HIDDEN)), sc.constant([0, 0, 0]), W, U, b)
print(state)
