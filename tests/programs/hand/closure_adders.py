# entry: apply_adders([1, 2, 3], 5)


def make_adder(k):
    def add(x):
        return x + k
    return add


def apply_adders(values, k):
    add_k = make_adder(k)
    double = lambda x: x * 2
    return [double(add_k(v)) for v in values]
