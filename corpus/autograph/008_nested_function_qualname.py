# id: autograph-008
# construct: qualname
# modes: original,unstaged
# expect: diverged
# reason: open: global q differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: a function defined inside a converted function has AutoGraph's qualname (outer_factory.<locals>.inner_factory.<locals>.tf__make.<locals>.inner)
# origin: the prototype's kinds (issue 21), written small by hand; fuzz --target autograph --seed 21 (18 min, 2 jobs) found it: reports/2026-11-26T02-47-16Z-autograph/findings/global-unstaged-5fa2220e, -a3b954d4 (decorators' wrappers), stdout-unstaged-b1624cd3, -ac7e20df (a lambda's repr printed)
# status: open
# tf-issue: not found (searched: autograph converted function qualname tf__)

def make():
    def inner():
        return 1
    return inner
q = make().__qualname__
