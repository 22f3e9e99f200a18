# entry: pipeline([5, 12, 7, 3, 20])
# entry: pipeline([])


def pipeline(nums):
    doubled = list(map(lambda n: n * 2, nums))
    big = list(filter(lambda n: n > 10, doubled))
    labels = list(map(str, big))
    return ",".join(labels)
