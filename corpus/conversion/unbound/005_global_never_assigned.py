# id: conv-unbound-005
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: reading a global that was never assigned raises NameError with the name in the message

def uses_missing(n):
    total = 0
    for i in range(n):
        total += i
    if total > 2:
        return total + undefined_global_value
    return total


print(uses_missing(2))


def main():
    try:
        uses_missing(5)
    except NameError as e:
        print(type(e).__name__, e)


main()

undefined_global_value = 1000
print(uses_missing(5))
