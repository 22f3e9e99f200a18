# entry: pipeline_sum(10)


def numbers(n):
    i = 0
    while i < n:
        yield i
        i += 1


def evens(source):
    for x in source:
        if x % 2 == 0:
            yield x


def scaled(source, k):
    for x in source:
        yield x * k


def pipeline_sum(n):
    return sum(scaled(evens(numbers(n)), 3))
