# entry: split_even_odd([1, 2, 3, 4, 5, 6])
# entry: split_even_odd([7, 9])


def split_even_odd(values):
    evens = []
    odds = []
    for v in values:
        if v % 2 == 0:
            evens.append(v)
        else:
            odds.append(v)
    return evens, odds
