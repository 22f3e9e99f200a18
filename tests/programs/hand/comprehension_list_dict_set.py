# entry: stats(["apple", "kiwi", "banana", "fig", "cherry"])


def stats(words):
    lengths = [len(w) for w in words]
    by_word = {w: len(w) for w in words if len(w) > 3}
    distinct_lengths = {n for n in lengths}
    return lengths, by_word, sorted(distinct_lengths)
