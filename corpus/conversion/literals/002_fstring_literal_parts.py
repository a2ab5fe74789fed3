# id: conv-literals-002
# construct: literals
# modes: original,unstaged
# expect: agree
# about: issue 16: f-string literal parts with surrogates, as written and around an expression the conversion rewrites

def show(n):
    for i in range(n):
        print(ascii(f"\ud800{i}\udfff"), ascii(f"\udc00{i if i else -1}\N{BULLET}"))
        print(f"\ud800{i}" == f"\udfff{i}")


show(2)
