def running_max(xs):
    """The largest value seen so far, at each position.

    >>> running_max([3, 1, 4, 1, 5])
    [3, 3, 4, 4, 5]
    """
    out = []
    best = xs[0]
    for x in xs:
        if x > best:
            best = x
        out.append(best)
    return out
