# entry: scale_all([1, 2, 3])
# entry: scale_all([4], factor=lambda x: -x)


def scale_all(values, factor=lambda x: x * 10, out=None):
    if out is None:
        out = []
    for v in values:
        out.append(factor(v))
    return out
