# entry: windows([1, 2, 3, 4, 5], 3)


def sliding(items, size):
    for start in range(len(items) - size + 1):
        yield items[start:start + size]


def windows(items, size):
    chunks = list(sliding(items, size))
    sums = [sum(c) for c in chunks]
    return chunks, sums
