# id: conv-break_continue-009
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: continue inside a while loop nested in a for loop affects only the while loop

def f(words):
    out = []
    for w in words:
        i = 0
        kept = ''
        while i < len(w):
            ch = w[i]
            i += 1
            if ch in 'aeiou':
                continue
            kept += ch
        out.append(kept)
    return out


print(f(['banana', 'queue', 'sky', '']))
