# entry: first_square_above([2, 5, 9, 16, 30], 10)
# entry: first_square_above([2, 3, 5], 1)


def is_square(n):
    r = int(n ** 0.5)
    return r * r == n


def first_square_above(values, limit):
    for v in values:
        if v > limit and is_square(v):
            found = v
            break
    else:
        found = None
    return found
