# entry: factorial(5)
# entry: factorial(0)


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)
