# id: conv-for-008
# construct: for
# modes: original,unstaged
# expect: agree
# about: for over a generator that prints as it yields; interleaving of producer and consumer output

def gen(n):
    for i in range(n):
        print('yield', i)
        yield i * 10
    print('gen done')


def consume(n):
    acc = []
    for v in gen(n):
        print('got', v)
        acc.append(v)
    return acc


print(consume(3))
