# entry: churn([1, 2, 3])


def rotate(items):
    return items[1:] + items[:1]


def checksum(items):
    return sum(i * w for i, w in enumerate(items))


def churn(items):
    rounds = 0
    while True:
        items = rotate(items)
        score = checksum(items)
        rounds += 1
