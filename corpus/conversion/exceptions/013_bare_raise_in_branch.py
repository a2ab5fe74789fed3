# id: conv-exceptions-013
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: bare raise inside an if branch (and inside a loop) within an except handler re-raises the active exception

def process(items):
    done = []
    for it in items:
        try:
            done.append(10 // it)
        except ZeroDivisionError:
            if len(done) >= 2:
                print('giving up after', done)
                raise
            print('skipping zero')
    return done


print(process([1, 0, 2]))


def main():
    try:
        process([1, 2, 0, 5])
    except ZeroDivisionError as e:
        print('outer', type(e).__name__, e)


main()
