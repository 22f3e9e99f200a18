# entry: first_fibs(7)


def fib_gen():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


def first_fibs(n):
    gen = fib_gen()
    out = [next(gen) for _ in range(n)]
    gen.close()
    return out
