# entry: walk(TREE)
# entry: depth_of(TREE)

TREE = {"value": 1, "children": [
    {"value": 2, "children": []},
    {"value": 3, "children": [{"value": 4, "children": []}]},
]}


def walk(node):
    total = node["value"]
    for child in node["children"]:
        total += walk(child)
    return total


def depth_of(node):
    if not node["children"]:
        return 1
    return 1 + max(depth_of(c) for c in node["children"])
