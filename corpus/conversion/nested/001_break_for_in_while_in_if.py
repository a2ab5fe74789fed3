# id: conv-nested-001
# construct: nested
# modes: original,unstaged
# expect: agree
# about: break in a for loop inside a while loop inside an if; the while test (a printing call) keeps being evaluated

def more(state):
    print('while test', state['round'])
    return state['round'] < 3


def f(enabled, grid):
    state = {'round': 0}
    hits = []
    if enabled:
        while more(state):
            for v in grid[state['round']]:
                if v < 0:
                    hits.append(('neg', state['round']))
                    break
                hits.append(v)
            state['round'] += 1
    else:
        hits.append('disabled')
    return hits


print(f(True, [[1, -1, 2], [3], [-4, 5]]))
print(f(False, []))
