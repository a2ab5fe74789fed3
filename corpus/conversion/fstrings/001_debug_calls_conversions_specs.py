# id: conv-fstrings-001
# construct: fstrings
# modes: original,unstaged,staged
# expect: agree
# about: issue 16: f-string `=` forms whose expression the conversion rewrites (calls, subscripts) were refused by the printer; the text is printed exactly as written (whitespace around `=`), then repr(value) without conversion or spec, format(value, spec) with a spec, the conversion with !r/!s/!a; specs with nested fields

class P:
    def __repr__(self):
        return 'P!'

    def __str__(self):
        return 'p-str'

    def __format__(self, spec):
        return 'fmt[' + spec + ']'


def f(a):
    return a * 2


def show(xs, w):
    print(f"{f(2) = }")
    print(f"{f(2)=}|{ f(3) =}|{f(4)= }|{  f(5)  =  }")
    print(f"{P() = }|{P() = !s}|{P() = !r}|{P()=!a}")
    print(f"{P() = :>10}|{P()=!s:>10}|{P()=:}|{P()=!r:}")
    print(f"{xs[0] = :>{w}}|{f(1) = :{'>'}{w + 1}}|{xs[1] = !r:^{f(w)}}")
    print(f"{P():x{f(2)=}y}|{P() = :{xs[2] = }}")
    print(f"{str(f(2)) = }", f'{"q" + str(f(2)) = }', f"{ {1: f(2)}[1] = }")
    return f"{w = }"


print(show([1, 2, 3], 6))
