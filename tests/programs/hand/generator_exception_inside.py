# entry: collect_valid(["1", "2", "x", "4"])


def parsed(texts):
    for t in texts:
        try:
            yield int(t)
        except ValueError:
            yield -1
        finally:
            pass


def collect_valid(texts):
    values = []
    for v in parsed(texts):
        if v >= 0:
            values.append(v)
    return values
