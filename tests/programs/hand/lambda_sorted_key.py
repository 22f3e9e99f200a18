# entry: rank([("ann", 31), ("bob", 25), ("cy", 31), ("dee", 19)])


def rank(people):
    by_age = sorted(people, key=lambda p: (-p[1], p[0]))
    names = [name for name, _ in by_age]
    oldest = max(people, key=lambda p: p[1])
    return names, oldest
