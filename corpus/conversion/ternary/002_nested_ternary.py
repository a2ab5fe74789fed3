# id: conv-ternary-002
# construct: ternary
# modes: original,unstaged
# expect: agree
# about: nested conditional expressions (right-associative) classifying numbers

def kind(n):
    return 'neg' if n < 0 else 'zero' if n == 0 else 'small' if n < 10 else 'big'


def parity(n):
    return ('even' if n % 2 == 0 else 'odd') if n >= 0 else 'n/a'


print([kind(n) for n in (-5, 0, 3, 42)])
print([parity(n) for n in (-1, 0, 7)])
