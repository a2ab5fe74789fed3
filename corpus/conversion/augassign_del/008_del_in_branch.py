# id: conv-augassign_del-008
# construct: augassign_del
# modes: original,unstaged
# expect: agree
# about: del in one branch of an if in a loop; the name is read on the next iteration (uncaught UnboundLocalError)

def f(xs):
    cur = 0
    for x in xs:
        print('x', x, 'cur', cur)
        if x < 0:
            del cur
        else:
            cur = x
    return 'done'


print(f([1, 2]))
print(f([1, -1, 3]))
