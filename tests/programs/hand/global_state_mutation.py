# entry: register("a")
# entry: register("b")

REGISTRY = []
CALLS = 0


def register(name):
    global CALLS
    CALLS += 1
    REGISTRY.append(name)
    return list(REGISTRY), CALLS
