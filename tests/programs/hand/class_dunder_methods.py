# entry: vector_math([1, 2], [3, 4])


class Vec:
    def __init__(self, xs):
        self.xs = list(xs)

    def __add__(self, other):
        return Vec(a + b for a, b in zip(self.xs, other.xs))

    def __mul__(self, k):
        return Vec(a * k for a in self.xs)

    def __len__(self):
        return len(self.xs)

    def __eq__(self, other):
        return self.xs == other.xs

    def __repr__(self):
        return f"Vec({self.xs})"


def vector_math(a, b):
    u = Vec(a)
    v = Vec(b)
    w = u + v * 2
    return w, len(w), w == Vec([7, 10])
