# entry: match_positions("kitten", "sitting")
# entry: match_positions("abc", "abc")


def match_positions(a, b):
    same = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            same.append(i)
    ratio = len(same) / max(len(a), len(b))
    return same, round(ratio, 3)
