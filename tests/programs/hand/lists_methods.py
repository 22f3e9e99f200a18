# entry: juggle([5, 3, 9, 1])


def juggle(items):
    items = list(items)
    items.append(7)
    items.insert(0, 2)
    items.sort()
    top = items.pop()
    items.remove(3)
    items.extend([top, top])
    idx = items.index(top)
    items.reverse()
    return items, idx, items.count(top)
