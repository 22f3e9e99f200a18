# entry: top(3)
# entry: top(-1)


def level3(x):
    if x < 0:
        raise ValueError("negative: " + str(x))
    return x * 3


def level2(x):
    return level3(x) + 1


def top(x):
    try:
        result = level2(x)
    except ValueError as e:
        result = str(e)
    return result
