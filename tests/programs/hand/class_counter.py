# entry: count_words(["a", "b", "a", "c", "a"])
# entry: count_words([])


class Counter:
    def __init__(self):
        self.counts = {}

    def add(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

    def most_common(self):
        best = None
        for key, n in self.counts.items():
            if best is None or n > self.counts[best]:
                best = key
        return best


def count_words(words):
    counter = Counter()
    for w in words:
        counter.add(w)
    return counter.most_common(), counter.counts
