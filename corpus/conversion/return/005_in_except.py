# id: conv-return-005
# construct: return
# modes: original,unstaged
# expect: agree
# about: return inside except and else clauses; the value and side effects are kept

def parse(s):
    try:
        v = int(s)
    except ValueError as e:
        print('bad', repr(s))
        return ('error', str(e))
    else:
        if v < 0:
            return ('negative', v)
    print('parsed', v)
    return ('ok', v)


def main():
    for s in ('12', 'x1', '-4'):
        print(parse(s))


main()
