# entry: fib(10)


def memoize(fn):
    cache = {}

    def inner(n):
        if n not in cache:
            cache[n] = fn(n)
        return cache[n]

    return inner


@memoize
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
