# entry: fib(6)
# entry: fib(1)


def fib(n):
    if n < 2:
        return n
    left = fib(n - 1)
    right = fib(n - 2)
    return left + right
