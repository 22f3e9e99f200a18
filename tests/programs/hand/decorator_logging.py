# entry: run_twice(4)


def traced(fn):
    calls = []

    def wrapper(*args):
        calls.append(args)
        result = fn(*args)
        return result

    wrapper.calls = calls
    return wrapper


@traced
def square(x):
    return x * x


def run_twice(x):
    a = square(x)
    b = square(a)
    return b, len(square.calls)
