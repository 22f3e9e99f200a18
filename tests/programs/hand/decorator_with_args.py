# entry: compute(3)


def repeat(times):
    def decorate(fn):
        def wrapper(x):
            value = x
            for _ in range(times):
                value = fn(value)
            return value
        return wrapper
    return decorate


@repeat(3)
def bump(x):
    return x * 2 + 1


def compute(x):
    return bump(x)
