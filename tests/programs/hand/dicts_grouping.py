# entry: group_by_length(["a", "bb", "cc", "ddd", "e"])


def group_by_length(words):
    groups = {}
    for w in words:
        key = len(w)
        if key not in groups:
            groups[key] = []
        groups[key].append(w)
    largest = max(groups, key=lambda k: len(groups[k]))
    return groups, largest
