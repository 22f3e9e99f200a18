# entry: forever(1)


def halve_or_grow(n, depth):
    if depth == 0:
        return n
    if n % 2 == 0:
        return halve_or_grow(n // 2, depth - 1)
    return halve_or_grow(3 * n + 1, depth - 1)


def forever(n):
    while True:
        n = halve_or_grow(n, 3) + 1
