# id: staged-lists-003
# construct: lists
# modes: original,unstaged,staged
# expect: agree
# about: AutoGraph's seed example (seed 001 §5, dynamic_rnn): outputs.append in a for loop over sc.range(max_len) with a run-time bound, stacked and transposed after it (an op on a list's length known only at execution); state frozen past each sequence's length by sc.where

import stagecheck as sc

def rnn_cell(x, state, w, u):
    state = sc.tanh(sc.matmul(x, w) + sc.matmul(state, u))
    return state, state

@sc.function
def dynamic_rnn(input_data, initial_state, w, u, sequence_len):
    input_data = sc.transpose(input_data, (1, 0, 2))
    outputs = []
    state = initial_state
    max_len = sc.reduce_max(sequence_len)
    for i in sc.range(max_len):
        prev_state = state
        output, state = rnn_cell(input_data[i], state, w, u)
        state = sc.where((i < sequence_len)[:, None], state, prev_state)
        outputs.append(output)
    outputs = sc.stack(outputs)
    outputs = sc.transpose(outputs, (1, 0, 2))
    return outputs, state

inputs = sc.constant([[[0.5, -1.0], [1.0, 0.25], [0.0, 2.0]],
                      [[-0.5, 0.5], [2.0, -1.0], [1.5, 1.5]]])
w = sc.constant([[0.5, -0.25, 1.0], [0.75, 0.5, -0.5]])
u = sc.constant([[0.25, 0.0, -0.5], [0.5, 0.25, 0.0], [-0.25, 0.5, 0.25]])
h0 = sc.zeros((2, 3))
outputs, state = dynamic_rnn(inputs, h0, w, u, sc.constant([3, 2]))
print(outputs)
print(state)
outputs, state = dynamic_rnn(inputs, h0, w, u, sc.constant([1, 2]))
print(outputs)
print(state)
