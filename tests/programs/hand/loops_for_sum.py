# entry: total_of([3, 1, 2])
# entry: total_of([])
# entry: total_of([10, -4, 7, 0, 5])


def total_of(numbers):
    total = 0
    for n in numbers:
        total += n
    return total
