# entry: transpose([[1, 2, 3], [4, 5, 6]])
# entry: pairs_summing(6)


def transpose(matrix):
    return [[row[i] for row in matrix] for i in range(len(matrix[0]))]


def pairs_summing(total):
    return [(a, b) for a in range(total + 1) for b in range(a, total + 1) if a + b == total]
