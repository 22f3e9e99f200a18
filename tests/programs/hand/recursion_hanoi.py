# entry: hanoi(3, "A", "C", "B")


def hanoi(n, source, target, spare):
    if n == 0:
        return []
    moves = hanoi(n - 1, source, spare, target)
    moves.append((source, target))
    moves += hanoi(n - 1, spare, target, source)
    return moves
