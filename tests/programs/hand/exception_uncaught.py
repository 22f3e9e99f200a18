# entry: checked_mean([1, 2, 3])
# entry: checked_mean([])


def validate(values):
    if not values:
        raise ValueError("empty input")
    return values


def checked_mean(values):
    values = validate(values)
    return sum(values) / len(values)
