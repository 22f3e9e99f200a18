# entry: lookup_path({"a": {"b": {"c": 1}}}, ["a", "b", "c"])
# entry: lookup_path({"a": {"b": {}}}, ["a", "b", "c"])


def step(node, key):
    return node[key]


def lookup_path(tree, keys):
    node = tree
    for k in keys:
        node = step(node, k)
    return node
