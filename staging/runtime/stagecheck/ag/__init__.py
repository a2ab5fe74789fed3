"""The operators converted code calls, one module per converter.

Each operator runs its construct now when its inputs are plain Python
values, exactly as Python would; staged values (registered in
`stagecheck.ag.dispatch`) go to the staged implementation instead. The
converter (transformer/src/passes/) and these modules mirror each other:

| converter              | operators                                     |
|------------------------|-----------------------------------------------|
| asserts                | assert_stmt                                   |
| call_trees             | converted_call                                |
| conditional_expressions| if_exp                                        |
| control_flow           | if_stmt, while_stmt, for_stmt, no_state       |
| logical_expressions    | and_, or_, not_, compare                      |
| slices                 | get_item, set_item                            |
| variables              | ld, ldu_all, Undefined                        |
"""

from stagecheck.ag.variables import ld, ldu_all, Undefined
from stagecheck.ag.control_flow import if_stmt, while_stmt, for_stmt, no_state
from stagecheck.ag.conditional_expressions import if_exp
from stagecheck.ag.logical import and_, or_, not_, compare
from stagecheck.ag.exceptions import assert_stmt
from stagecheck.ag.call_trees import converted_call
from stagecheck.ag.slices import get_item, set_item


def bind(name):
    """Makes these operators reachable from converted code as `name`, a builtin.

    A converted module starts with `__import__('stagecheck').ag.bind('ag__')`
    (`ag__` unless the program uses that name), which binds no name of the
    module: its `globals()`, `dir()`, `vars()` and `locals()` are the
    original's, and `ag__` is found in builtins, where a program's own names
    of any scope come first. The sandbox restores builtins after every run.
    """
    from stagecheck import ag
    builtins = __builtins__
    if isinstance(builtins, dict):
        builtins[name] = ag
    else:
        setattr(builtins, name, ag)
