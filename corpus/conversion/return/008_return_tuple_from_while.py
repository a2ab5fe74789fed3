# id: conv-return-008
# construct: return
# modes: original,unstaged
# expect: agree
# about: return from while/else: returns in the else clause and in the body

def index_of(xs, v):
    i = 0
    while i < len(xs):
        if xs[i] == v:
            return i
        i += 1
    else:
        return -1
    print('unreachable')


print(index_of('hello', 'l'), index_of('hello', 'z'), index_of('', 'a'))
