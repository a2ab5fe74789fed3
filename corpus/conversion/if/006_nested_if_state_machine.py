# id: conv-if-006
# construct: if
# modes: original,unstaged
# expect: agree
# about: nested ifs in a tiny tokenizer state machine over a string

def tokenize(s):
    tokens = []
    state = 'start'
    cur = ''
    for ch in s + ' ':
        if state == 'start':
            if ch.isdigit():
                state = 'num'
                cur = ch
            elif ch.isalpha():
                state = 'word'
                cur = ch
            elif ch != ' ':
                tokens.append(('op', ch))
        elif state == 'num':
            if ch.isdigit():
                cur += ch
            else:
                tokens.append(('num', int(cur)))
                state = 'start'
                if ch != ' ':
                    tokens.append(('op', ch))
        else:
            if ch.isalnum():
                cur += ch
            else:
                tokens.append(('word', cur))
                state = 'start'
                if ch != ' ':
                    tokens.append(('op', ch))
    return tokens


toks = tokenize('x1 = 42+y*7')


def main():
    for t in toks:
        print(t)


main()
