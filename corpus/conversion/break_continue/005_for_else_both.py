# id: conv-break_continue-005
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: for/else: break skips else; continue on the last item still lets else run

def search(xs, bad):
    log = []
    for x in xs:
        if x == bad:
            log.append('break')
            break
        if x % 2:
            log.append('continue')
            continue
        log.append(x)
    else:
        log.append('else')
    return log


print(search([2, 3, 4, 5], 4))
print(search([2, 3, 4, 5], 9))
print(search([], 9))
