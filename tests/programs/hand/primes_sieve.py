# entry: primes_below(30)
# entry: primes_below(2)


def primes_below(n):
    if n < 3:
        return []
    flags = [True] * n
    flags[0] = flags[1] = False
    p = 2
    while p * p < n:
        if flags[p]:
            for multiple in range(p * p, n, p):
                flags[multiple] = False
        p += 1
    return [i for i, ok in enumerate(flags) if ok]
