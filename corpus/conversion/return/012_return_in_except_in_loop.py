# id: conv-return-012
# construct: return
# modes: original,unstaged
# expect: agree
# about: return from an except clause inside a loop; exceptions caught in earlier iterations do not stop the loop

def first_number(tokens):
    errors = 0
    for t in tokens:
        try:
            return int(t), errors
        except ValueError:
            errors += 1
            if errors >= 3:
                return None, errors
    return None, errors


print(first_number(['a', 'b', '7', '8']))
print(first_number(['a', 'b', 'c', '9']))
print(first_number(['q']))
