# entry: outer(2)


def combine(a, b, c):
    return a * 100 + b * 10 + c


def inc(x):
    return x + 1


def outer(x):
    value = combine(
        inc(x),
        inc(x + 1),
        inc(x + 2),
    )
    return value
