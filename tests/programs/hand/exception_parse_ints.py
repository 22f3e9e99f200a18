# entry: parse_all(["1", "x", "42", "", "-7"])


def parse_one(text):
    return int(text)


def parse_all(texts):
    good = []
    bad = 0
    for t in texts:
        try:
            good.append(parse_one(t))
        except ValueError as err:
            bad += 1
            last_error = str(err)
    return good, bad, last_error
