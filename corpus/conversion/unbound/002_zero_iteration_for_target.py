# id: conv-unbound-002
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: the target of a for loop over an empty list stays unbound; reading it ends the program

def last_item(xs):
    for item in xs:
        print('item', item)
    return item


print(last_item([4, 5]))
print(last_item([]))
