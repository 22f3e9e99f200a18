# entry: digit_report(90210)
# entry: digit_report(7)


def digit_report(n):
    digits = []
    while n:
        n, d = divmod(n, 10)
        digits.append(d)
    digits.reverse()
    return digits, sum(digits)
