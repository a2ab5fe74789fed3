# id: staged-if-012
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: found by stagecheck fuzz (tensor family, seed 1 index 3): a name one branch of a staged if binds and nothing reads after it must not leak into the tracing of the other branch (it once held the finished branch's symbolic value)

import stagecheck as sc
@sc.function
def x0(t1, t2, t3):
            if (not (sc.constant(9) == t2)):
                    t3 = sc.concat([sc.constant([[5]]), sc.zeros([1, 1], sc.int32), sc.ones([1, 1], sc.int32)], 1) % 97
            else:
                n12 = sc.constant(0)
                while n12 < 1:
                    t3 = (t3 - sc.constant([[8, -1, 3]])) % 97
print(x0(sc.constant([-3, 8, -3, -3]), sc.constant(5), sc.constant([[7, 5, 3]])))
