# entry: countdown(5)
# entry: countdown(0)


def countdown(n):
    seen = []
    while n > 0:
        seen.append(n)
        n -= 1
    return seen
