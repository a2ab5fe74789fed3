# id: conv-calls-012
# construct: calls
# modes: original,unstaged
# expect: agree
# about: private (__name) attributes are mangled inside if/for/while bodies of methods exactly as at method top level

class Account:
    def __init__(self, balance):
        self.__balance = balance
        self.__log = []

    def apply(self, amounts):
        for a in amounts:
            if self.__balance + a < 0:
                self.__log.append('rejected %d' % a)
                continue
            self.__balance += a
        while len(self.__log) > 2:
            self.__log.pop(0)
        return self.__balance

    def log(self):
        return list(self.__log)


def run():
    acc = Account(10)
    r = acc.apply([5, -20, -3, -50, -60, 1])
    return r, acc.log(), sorted(k for k in acc.__dict__), hasattr(acc, '__balance')


print(run())
