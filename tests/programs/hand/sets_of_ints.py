# entry: compare([1, 2, 3, 4, 4], [3, 4, 5])


def compare(a, b):
    sa = set(a)
    sb = set(b)
    common = sa & sb
    only_a = sa - sb
    either = sa | sb
    return sorted(common), sorted(only_a), len(either), 5 in either
