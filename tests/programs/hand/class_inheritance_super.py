# entry: describe_all()


class Animal:
    def __init__(self, name, legs):
        self.name = name
        self.legs = legs

    def describe(self):
        return f"{self.name} has {self.legs} legs"


class Bird(Animal):
    def __init__(self, name, can_fly=True):
        super().__init__(name, 2)
        self.can_fly = can_fly

    def describe(self):
        base = super().describe()
        return base + (" and flies" if self.can_fly else " and walks")


def describe_all():
    zoo = [Animal("cat", 4), Bird("robin"), Bird("penguin", can_fly=False)]
    return [a.describe() for a in zoo]
