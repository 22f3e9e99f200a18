# entry: follow()


def ticks():
    t = 0
    while True:
        yield t
        t = (t + 1) % 7


def follow():
    total = 0
    for t in ticks():
        total = (total + t) % 100
