# id: conv-nested-014
# construct: nested
# modes: original,unstaged
# expect: agree
# about: a generator that yields inside a with block and returns early; closing it explicitly runs __exit__; for/else over it

class Res:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print('open', self.name)
        return self

    def __exit__(self, et, ev, tb):
        print('close', self.name, et.__name__ if et else None)
        return False


def lines(name, data):
    with Res(name):
        for line in data:
            if line == 'EOF':
                return
            yield line


def count(name, data, stop=None):
    n = 0
    src = lines(name, data)
    for line in src:
        if line == stop:
            print('stopping at', line)
            break
        n += 1
    else:
        print('all lines of', name, 'read')
    print('closing', name)
    src.close()
    return n


print(count('a', ['x', 'y', 'EOF', 'z']))
print(count('b', ['x', 'y', 'z'], stop='y'))
print(count('c', []))
