# entry: report([4, 8, 15, 16, 23, 42])
# entry: report([5])


def mean(values):
    return sum(values) / len(values)


def spread(values):
    return max(values) - min(values)


def describe(values):
    m = mean(values)
    s = spread(values)
    return {"mean": m, "spread": s}


def report(values):
    summary = describe(values)
    label = "wide" if summary["spread"] > 10 else "narrow"
    return label, summary
