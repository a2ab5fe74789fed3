# Snek fig. 10: aggregate(x) sums x, x-1, ..., 1. In the staged mode the
# while loop becomes a graph `while` node: `stagecheck run --mode staged
# --show-graph examples/aggregate.py`.
import stagecheck as sc


@sc.function
def aggregate(x):
    ret = sc.constant(0)
    while x > 0:
        ret = ret + x
        x = x - 1
    return ret


print(aggregate(sc.constant(10)))
print(aggregate(sc.constant(100)))
