# entry: sum_skipping([1, -2, 3, 0, -5, 6])
# entry: sum_skipping([-1, -1])


def sum_skipping(items):
    kept = 0
    skipped = 0
    for item in items:
        if item <= 0:
            skipped += 1
            continue
        kept += item
    return kept, skipped
