# entry: use_counter(3)


def make_counter(start):
    count = start

    def bump(step=1):
        nonlocal count
        count += step
        return count

    return bump


def use_counter(n):
    bump = make_counter(10)
    values = []
    for _ in range(n):
        values.append(bump())
    values.append(bump(5))
    return values
