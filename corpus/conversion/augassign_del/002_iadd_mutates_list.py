# id: conv-augassign_del-002
# construct: augassign_del
# modes: original,unstaged
# expect: agree
# about: += on a list mutates in place (alias sees it); on a tuple and int it rebinds

def f():
    a = [1]
    alias = a
    a += [2]
    t = (1,)
    talias = t
    t += (2,)
    n = 1
    nalias = n
    n += 1
    return alias, talias, nalias, a is alias, t is talias


print(f())
