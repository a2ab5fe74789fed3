# id: conv-ternary-008
# construct: ternary
# modes: original,unstaged
# expect: agree
# about: the selected branch of a conditional expression raises ZeroDivisionError, which ends the program

def ratio(a, b, safe):
    return (a / b if b else 0.0) if safe else a / b


print(ratio(1, 2, True), ratio(1, 0, True), ratio(3, 4, False))
print(ratio(1, 0, False))
