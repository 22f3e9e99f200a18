# entry: collatz_steps(6)
# entry: collatz_steps(1)
# entry: collatz_steps(27)


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps
