# entry: drain(3)


def counter(limit):
    n = 0
    while n < limit:
        yield n
        n += 1
    return "done"


def drain(limit):
    gen = counter(limit)
    seen = []
    while True:
        try:
            seen.append(next(gen))
        except StopIteration as stop:
            final = stop.value
            break
    return seen, final
