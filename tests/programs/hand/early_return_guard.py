# entry: classify(-5)
# entry: classify(0)
# entry: classify(12)


def classify(n):
    if n < 0:
        return "negative"
    if n == 0:
        return "zero"
    kind = "even" if n % 2 == 0 else "odd"
    if n > 10:
        return "big " + kind
    return kind
