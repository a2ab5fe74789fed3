# id: conv-literals-001
# construct: literals
# modes: original,unstaged
# expect: agree
# about: issue 16: lone and paired surrogates written as escapes (a parsed string holds them as U+FFFD; the printer copies the literal's text)

def compare():
    print("\ud800" == "\udfff")
    pair = "\ud83d\ude00"
    print(ascii(pair), len(pair), pair == "\U0001F600")
    for c in ("\udc80", "\udcff"):
        print(ascii(c), ord(c))
    return ("a"
            "\ud800")


print(ascii(compare()))
