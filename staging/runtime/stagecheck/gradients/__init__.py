"""Automatic differentiation: `sc.GradientTape` (TF Eager's tape, seed 002
§4.2), eager and staged.

A tape records, in order, every op whose output is a float and one of whose
inputs it is connected to (watched with `watch`, read from an `sc.Variable`,
or computed from such): `tensor._apply`, rebound to `_taped_apply`, calls `_record` while a tape is
active (`tensor._tape_hook`). `gradient` walks the record backwards with the
rules of `rules.py`, written with `sc` ops, so under a trace (a tape inside
`@sc.function`) the backward pass is graph nodes of the same function.

Recording happens at one trace level at a time (`_levels`: the eager level
at the bottom, then one per staged part traced while a tape records):
- a staged call (`functions.py: Function._taped_call`) is traced with a
  sub-tape watching its float parameters; the graph function also returns
  the values its backward pass needs (TF Eager's "forward" function), and
  the caller's tapes record one call entry, whose backward is the sub-tape's
  walked where the gradient is taken (eagerly, or inline in the trace).
- a staged `if` (`control_flow.py: if_stmt`) traces each branch with a
  sub-tape, twice: once to learn what each branch's backward needs, then
  with those values as extra cond outputs (the other branch gives zeros:
  cond_v2's intermediates). Its backward is a cond over the branches'
  backward passes; the gradient already accumulated for each value the
  branches captured goes in, so sums associate as in the eager walk.
- a staged while/for loop (`control_flow.py: _loop`) is traced twice too:
  the second time its body pushes, at every iteration, the values its
  backward pass needs on lists carried as extra loop variables (while_v2's
  accumulators, graph/src/list.rs), and counts its iterations; the
  backward is a loop running as many times, popping them, carrying the
  gradients of the loop variables and of the values the body captured.
  Not yet: a loop inside a loop (its accumulators would be lists of lists),
  a list of the program's grown in the loop, a cond inside the loop reaching
  a value through one branch only (StagingError refusals).

A value that is both a loop's initial value and captured by its body gets
two sums (the capture's, then the loop variable's) added after the loop,
where the eager walk interleaves them in the first iteration: bit-equal on
100 random cases (corpus/staged/gradients/006 holds 12), but not argued
equal in general.

Exactness: the eager and staged walks accumulate each value's gradient
contributions in the same order, left to right (a call's backward adds its
contributions one by one to the caller's lists), so CPU results are equal.

None where a source is unconnected. Under a staged `if`, a gradient reached
through one branch only is None or not depending on the branch taken: a
graph cannot give None, so that is a StagingError unless the program asks
`unconnected_gradients='zero'` (then zeros where the branch did not reach)."""


from stagecheck.gradients.tape import GradientTape, on_path, recording, stop_gradient
from stagecheck.gradients.staged import CondRecording, FunctionRecording, refuse_part
from stagecheck.gradients.loops import LoopRecording

__all__ = ['CondRecording', 'FunctionRecording', 'GradientTape', 'LoopRecording', 'on_path', 'recording',
           'refuse_part', 'stop_gradient']
