# entry: times_table(3)
# entry: times_table(1)


def times_table(n):
    rows = []
    for i in range(1, n + 1):
        row = []
        for j in range(1, n + 1):
            row.append(i * j)
        rows.append(row)
    return rows
