# id: conv-fstrings-002
# construct: fstrings
# modes: original,unstaged,staged
# expect: agree
# about: issue 16: f-string `=` forms nested in f-strings (in the expression and in a format spec), multi-line in triple-quoted f-strings (the newlines are part of the text), implicitly concatenated with plain and raw parts, after octal escapes (a copied `\1` must not take in the digit of `{7=}`), inside loop bodies that become nested functions

def f(a):
    return a * 2


def nested(w):
    print(f"{f'{f(5) = }' = }")
    print(f'{f"{w = :>{f(w)}}" = }')
    print(f"{f(w):{f'{w=}'[0]}>{f(2)}}")
    print(f"""{
f(6)
 = }""", f'''{ f(1)
  =  !r:>{w}}''')
    print(f"a{f(7)=}b" "c" rf"\d{f(1) = }" f"{w=}")
    print(ascii(f"\1{7=}|\12{w=}|\123{w = }|\\1{w=}|\0{0=}"))


def loops(n):
    out = []
    for i in range(n):
        if i % 2:
            out.append(f"{i = }, {i + f(i) = :03d}")
        else:
            out.append(f"{[f(j) for j in range(i)] = }")
    while n > 0:
        n -= 1
        out.append(f"{n = !s:*^9}")
    return out


nested(3)
print(loops(4))
