# entry: spin(0)


def spin(n):
    while True:
        n += 1
        if n % 1000 == 0:
            n -= 1000
