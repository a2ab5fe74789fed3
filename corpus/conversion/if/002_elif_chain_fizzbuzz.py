# id: conv-if-002
# construct: if
# modes: original,unstaged
# expect: agree
# about: elif chain in fizzbuzz; each test evaluated in order only until one holds

def fizzbuzz(n):
    out = []
    for i in range(1, n + 1):
        if i % 15 == 0:
            out.append('FizzBuzz')
        elif i % 3 == 0:
            out.append('Fizz')
        elif i % 5 == 0:
            out.append('Buzz')
        else:
            out.append(str(i))
    return out


fb = fizzbuzz(16)
print(' '.join(fb))
