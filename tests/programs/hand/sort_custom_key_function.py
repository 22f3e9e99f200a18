# entry: order_versions(["1.10.0", "1.2.3", "1.2.10", "0.9"])


def version_key(text):
    parts = []
    for piece in text.split("."):
        parts.append(int(piece))
    return parts


def order_versions(versions):
    ordered = sorted(versions, key=version_key)
    newest = max(versions, key=version_key)
    return ordered, newest
