# entry: table([("alpha", 1.5), ("beta", 22.25), ("gamma", 3.0)])


def fmt_row(name, value, width):
    return f"{name:<{width}}|{value:>8.2f}"


def table(rows):
    width = max(len(name) for name, _ in rows) + 1
    lines = [fmt_row(n, v, width) for n, v in rows]
    header = "name".ljust(width) + "|" + "value".rjust(8)
    return "\n".join([header] + lines)
