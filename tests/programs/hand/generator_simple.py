# entry: consume(4)


def squares(n):
    for i in range(n):
        yield i * i


def consume(n):
    total = 0
    for sq in squares(n):
        total += sq
    return total
