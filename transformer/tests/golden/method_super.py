class Base:
    def name(self):
        return 'base'

class Child(Base):
    def name(self):
        if self:
            return 'child of ' + super().name()
        return 'never'
