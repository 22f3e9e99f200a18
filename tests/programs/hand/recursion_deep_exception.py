# entry: descend(30)
# entry: safe_descend(30)


def descend(n):
    if n == 0:
        raise LookupError("bottom reached")
    return descend(n - 1) + 1


def safe_descend(n):
    try:
        return descend(n)
    except LookupError as e:
        return "caught: " + str(e)
