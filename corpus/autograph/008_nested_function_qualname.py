# id: autograph-008
# construct: qualname
# modes: original,unstaged
# expect: diverged
# reason: open: global q differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: a function defined inside a converted function has AutoGraph's qualname (outer_factory.<locals>.inner_factory.<locals>.tf__make.<locals>.inner)
# origin: the prototype's kinds (issue 21), written small by hand; fuzz --target autograph finds it too (see README.md)
# status: open
# tf-issue: not found (searched: autograph converted function qualname tf__)

def make():
    def inner():
        return 1
    return inner
q = make().__qualname__
