# id: staged-raise-001
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: a raise in a staged if's branch (issue 25's safe_div): nothing when the branch is not taken, the ValueError with its message and line when it is
import stagecheck as sc

@sc.function
def safe_div(x, y):
    if y == 0:
        raise ValueError("division by zero")
    return x / y

print(float(safe_div(sc.constant(6.0), sc.constant(3.0))))
try:
    safe_div(sc.constant(6.0), sc.constant(0.0))
except ValueError as e:
    print('caught:', e)
print(float(safe_div(sc.constant(1.0), sc.constant(4.0))))
safe_div(sc.constant(1.0), sc.constant(0.0))
