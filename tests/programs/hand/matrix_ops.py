# entry: matmul([[1, 2], [3, 4]], [[5, 6], [7, 8]])
# entry: diagonal_sum([[1, 2, 3], [4, 5, 6], [7, 8, 9]])


def matmul(a, b):
    rows, inner, cols = len(a), len(b), len(b[0])
    out = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        for j in range(cols):
            for k in range(inner):
                out[i][j] += a[i][k] * b[k][j]
    return out


def diagonal_sum(m):
    return sum(m[i][i] for i in range(len(m))) + sum(m[i][-1 - i] for i in range(len(m)))
