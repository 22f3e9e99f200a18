# entry: summarize([3, 8, 1, 9, 4])


def summarize(values):
    total = sum(v * v for v in values)
    any_big = any(v > 8 for v in values)
    all_pos = all(v > 0 for v in values)
    return total, any_big, all_pos
