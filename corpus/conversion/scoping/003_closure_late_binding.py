# id: conv-scoping-003
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: closures and lambdas created in a loop all see the last value of the loop variable (late binding)

def make():
    fs = []
    for i in range(3):
        fs.append(lambda: i)

        def g():
            return i * 10
        fs.append(g)
    return [f() for f in fs]


def make_bound():
    fs = []
    for i in range(3):
        fs.append(lambda i=i: i)
    return [f() for f in fs]


print(make())
print(make_bound())
