# id: conv-break_continue-015
# construct: break_continue
# modes: original,unstaged,staged
# expect: agree
# about: a break whose finally raises is cancelled: the except resumes the loop (fuzz finding, seed 21 index 2360)

log = []


def f():
    for i in range(3):
        try:
            try:
                if i < 2:
                    break
                log.append(('body', i))
            finally:
                ''[i]
        except IndexError:
            log.append(('caught', i))
        finally:
            log.append(('end', i))
    return i


print(f(), log)
