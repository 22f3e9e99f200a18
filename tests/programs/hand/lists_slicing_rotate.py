# entry: rotations([1, 2, 3, 4])


def rotate(items, k):
    k %= len(items)
    return items[k:] + items[:k]


def rotations(items):
    seen = []
    for k in range(len(items)):
        seen.append(rotate(items, k))
    return seen, items[::-1], items[1:3]
