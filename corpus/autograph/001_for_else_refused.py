# id: autograph-001
# construct: for_else
# modes: original,unstaged
# expect: refused
# reason: ConversionError: UnsupportedLanguageElementError: for/else statement not yet supported
# target: autograph
# version: TensorFlow 2.21.0
# about: for/else in a converted function: AutoGraph refuses it (UnsupportedLanguageElementError), a refusal, not a finding
# origin: the prototype's kinds (issue 21), written small by hand; among the refusals of fuzz --target autograph --seed 21 (target: UnsupportedLanguageElementError)
# status: refused
# tf-issue: documented limitation (AutoGraph reference, limitations: for/else and while/else are not supported); no issue needed

def f():
    for i in range(2):
        pass
    else:
        return 1
r = f()
