# id: conv-augassign_del-007
# construct: augassign_del
# modes: original,unstaged
# expect: agree
# about: += makes a name local; with no iterations the return raises, otherwise the first += raises UnboundLocalError (uncaught)

total = 100


def add_all(xs):
    for x in xs:
        total += x
    return total


def main():
    try:
        add_all([])
    except UnboundLocalError as e:
        print('empty:', type(e).__name__)


main()

print(add_all([1, 2]))
