# entry: permutations([1, 2, 3])
# entry: permutations([])


def permutations(items):
    if len(items) <= 1:
        return [list(items)]
    result = []
    for i, head in enumerate(items):
        rest = items[:i] + items[i + 1:]
        for tail in permutations(rest):
            result.append([head] + tail)
    return result
