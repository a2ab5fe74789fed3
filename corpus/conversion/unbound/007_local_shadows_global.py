# id: conv-unbound-007
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: assignment later in a function makes a name local everywhere in it; the early read does not see the global

counter = 5


def bump(flag):
    if flag:
        counter = 0
    return counter + 1


print(bump(True))


def main():
    try:
        bump(False)
    except UnboundLocalError as e:
        print(type(e).__name__)


main()

print(counter)
