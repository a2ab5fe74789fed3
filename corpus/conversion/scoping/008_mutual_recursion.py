# id: conv-scoping-008
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: mutually recursive functions (is_even/is_odd) and a recursive descent expression parser

def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def parse_expr(s, i):
    v, i = parse_term(s, i)
    while i < len(s) and s[i] in '+-':
        op = s[i]
        w, i = parse_term(s, i + 1)
        v = v + w if op == '+' else v - w
    return v, i


def parse_term(s, i):
    v, i = parse_atom(s, i)
    while i < len(s) and s[i] == '*':
        w, i = parse_atom(s, i + 1)
        v *= w
    return v, i


def parse_atom(s, i):
    if s[i] == '(':
        v, i = parse_expr(s, i + 1)
        return v, i + 1
    j = i
    while j < len(s) and s[j].isdigit():
        j += 1
    return int(s[i:j]), j


print([is_even(n) for n in range(6)], is_odd(51))
print(parse_expr('2*(3+4)-5*2', 0)[0], parse_expr('((1))+2*3*4', 0)[0])
