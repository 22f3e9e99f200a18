# entry: inventory([("apple", 3), ("pear", 2), ("apple", 4), ("fig", 1)])


def inventory(entries):
    stock = {}
    for name, qty in entries:
        stock[name] = stock.get(name, 0) + qty
    stock.setdefault("kiwi", 0)
    removed = stock.pop("fig", None)
    names = list(stock.keys())
    total = sum(stock.values())
    pairs = sorted(stock.items(), key=lambda kv: kv[1])
    return names, total, removed, pairs
