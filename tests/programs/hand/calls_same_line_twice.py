# entry: combined(3, 4)
# entry: chain(2)


def g(x):
    y = x * x
    return y + 1


def combined(a, b):
    result = g(a) + g(b)
    return result


def chain(x):
    return g(g(g(x)))
