# entry: take_countdown(4)


class Countdown:
    def __init__(self, start):
        self.current = start

    def __iter__(self):
        return self

    def __next__(self):
        if self.current <= 0:
            raise StopIteration
        self.current -= 1
        return self.current + 1


def take_countdown(n):
    seen = []
    for value in Countdown(n):
        seen.append(value)
    return seen
