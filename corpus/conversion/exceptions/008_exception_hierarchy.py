# id: conv-exceptions-008
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: except clauses with tuples and base classes; the first matching clause wins; custom exception attributes

class ParseError(ValueError):
    def __init__(self, pos, msg):
        super().__init__(msg)
        self.pos = pos


def parse(s):
    for i, ch in enumerate(s):
        if not ch.isdigit():
            raise ParseError(i, 'unexpected %r' % ch)
    if not s:
        raise LookupError('empty')
    return int(s)


def run(inputs):
    out = []
    for s in inputs:
        try:
            out.append(parse(s))
        except (KeyError, ParseError) as e:
            out.append(('parse', e.pos, str(e)))
        except ValueError:
            out.append('never: ParseError matched earlier')
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out


print(run(['12', '1x', '', '007']))
