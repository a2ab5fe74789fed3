# id: conv-introspection-001
# construct: introspection
# modes: original,unstaged,staged
# expect: agree
# about: issue 16: the runtime is no global of the converted module: globals(), dir(), vars() at module level and locals() in a converted function are the original's

def scale(a, k=2):
    b = a * k
    names = sorted(locals())
    return b, names


print("ag__" in globals(), "ag__" in dir(), "ag__" in vars())
print(sorted(globals()))
print(dir())
print(sorted(vars()))
print(scale(3))
print(sorted(name for name in globals() if not name.startswith("__")))
