# entry: prices(["apple", "durian", "pear"])


TABLE = {"apple": 3, "pear": 4}


def price_of(name):
    try:
        return TABLE[name]
    except KeyError:
        return 0


def prices(names):
    return [price_of(n) for n in names]
