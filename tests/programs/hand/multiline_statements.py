# entry: build_record("ada", 36, ["math", "engines"])


def build_record(name,
                 age,
                 tags):
    record = {
        "name": name.title(),
        "age": age,
        "tags": [t.upper()
                 for t in tags],
    }
    total = (age
             + len(name)
             + len(tags))
    if (age > 30 and
            len(tags) > 1):
        record["senior"] = True
    message = ("record for " +
               record["name"])
    return record, total, message
