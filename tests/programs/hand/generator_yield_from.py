# entry: chained([1, 2], [3], [])


def each(items):
    for item in items:
        yield item


def chain_all(*lists):
    for items in lists:
        yield from each(items)
    yield "end"


def chained(*lists):
    out = []
    for x in chain_all(*lists):
        out.append(x)
    return out
