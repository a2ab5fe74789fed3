# id: conv-exceptions-006
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: ZeroDivisionError, TypeError and KeyError raised by operations inside loop bodies and conditions, caught per iteration

def f(pairs, table):
    out = []
    for a, b in pairs:
        try:
            if a / b > 1 and table[a] > 0:
                out.append(('big', a))
            else:
                out.append(('small', a))
        except ZeroDivisionError as e:
            out.append(('zde', str(e)))
        except TypeError:
            out.append(('type', a))
        except KeyError as e:
            out.append(('key', e.args[0]))
    return out


def main():
    for row in f([(4, 2), (1, 0), ('s', 1), (9, 3), (1, 5)], {4: 1}):
        print(row)


main()
