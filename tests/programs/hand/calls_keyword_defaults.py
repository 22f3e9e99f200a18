# entry: make_label("disk", 3)
# entry: make_label("cpu", 12, unit="%", width=6)


def pad(text, width=8, fill="."):
    while len(text) < width:
        text = text + fill
    return text


def make_label(name, amount, unit="GB", width=10):
    left = pad(name, width=width)
    right = str(amount) + unit
    return left + right
