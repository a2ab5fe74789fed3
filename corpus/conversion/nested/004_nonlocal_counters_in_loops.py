# id: conv-nested-004
# construct: nested
# modes: original,unstaged
# expect: agree
# about: nonlocal counters updated from helper functions called in nested loops and conditions

def analyse(text):
    words = 0
    vowels = 0
    longest = ''

    def saw_word(w):
        nonlocal words, longest
        words += 1
        if len(w) > len(longest):
            longest = w

    def saw_vowel():
        nonlocal vowels
        vowels += 1

    for line in text.split('\n'):
        for w in line.split():
            saw_word(w)
            for ch in w:
                if ch in 'aeiouAEIOU':
                    saw_vowel()
    return words, vowels, longest


print(analyse('the quick brown fox\njumps over\n\nthe lazy dog'))
