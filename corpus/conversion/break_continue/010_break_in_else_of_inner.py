# id: conv-break_continue-010
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: break in the else clause of an inner for loop leaves the outer while loop

def gen_test(state):
    state['tests'] += 1
    print('outer test', state['tests'])
    return state['tests'] < 10


def f(rows):
    state = {'tests': 0}
    k = 0
    while gen_test(state):
        row = rows[k]
        k += 1
        for v in row:
            if v < 0:
                print('negative in row', k)
                break
        else:
            print('clean row', k)
            break
    return k, state['tests']


print(f([[1, -1], [-2], [3, 4], [5]]))
