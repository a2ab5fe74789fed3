# id: conv-assert-002
# construct: assert
# modes: original,unstaged
# expect: agree
# about: failing assert without a message: AssertionError with empty args, inside a loop

def validate(xs):
    ok = 0
    for x in xs:
        assert isinstance(x, int)
        ok += 1
    return ok


print(validate([1, 2, 3]))


def main():
    try:
        validate([1, 'two', 3])
    except AssertionError as e:
        print(type(e).__name__, repr(str(e)), e.args)


main()
