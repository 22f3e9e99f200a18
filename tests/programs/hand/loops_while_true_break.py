# entry: find_power_at_least(100)
# entry: find_power_at_least(1)


def find_power_at_least(limit):
    power = 1
    exponent = 0
    while True:
        if power >= limit:
            break
        power *= 2
        exponent += 1
    return exponent, power
