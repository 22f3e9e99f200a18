# entry: evaluate(("add", ("num", 2), ("mul", ("num", 3), ("num", 4))))
# entry: evaluate(("neg", ("num", 5)))


def evaluate(expr):
    match expr:
        case ("num", value):
            return value
        case ("add", left, right):
            return evaluate(left) + evaluate(right)
        case ("mul", left, right):
            return evaluate(left) * evaluate(right)
        case _:
            raise ValueError(f"unknown {expr[0]}")
