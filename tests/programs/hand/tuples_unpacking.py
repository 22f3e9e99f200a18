# entry: swap_min_max([4, 1, 7, 3])


def min_max(values):
    lo = hi = values[0]
    for v in values[1:]:
        lo, hi = min(lo, v), max(hi, v)
    return lo, hi


def swap_min_max(values):
    lo, hi = min_max(values)
    first, *middle, last = values
    i, j = values.index(lo), values.index(hi)
    values = list(values)
    values[i], values[j] = values[j], values[i]
    return values, (first, middle, last)
