# id: conv-nested-006
# construct: nested
# modes: original,unstaged
# expect: agree
# about: a state-machine parser for key=value;... strings with nested ifs, loops, break, and error raising

def parse(s):
    result = {}
    key = ''
    val = ''
    state = 'key'
    for i, ch in enumerate(s):
        if state == 'key':
            if ch == '=':
                if not key:
                    raise ValueError('empty key at %d' % i)
                state = 'val'
            elif ch == ';':
                raise ValueError('missing value at %d' % i)
            else:
                key += ch
        elif state == 'val':
            if ch == ';':
                result[key] = val
                key, val, state = '', '', 'key'
            elif ch == '#':
                state = 'comment'
            else:
                val += ch
        else:
            break
    if state != 'key' or key:
        result[key] = val
    return result


def main():
    for s in ('a=1;b=2', 'x=10;y=#ignored;z=3', 'k=v;', '=1', 'a;'):
        try:
            print(repr(s), parse(s))
        except ValueError as e:
            print(repr(s), type(e).__name__, e)


main()
