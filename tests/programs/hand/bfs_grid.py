# entry: shortest_path(["..#", ".#.", "..."], (0, 0), (2, 2))
# entry: shortest_path([".#", "#."], (0, 0), (1, 1))
from collections import deque


def neighbours(grid, r, c):
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < len(grid) and 0 <= nc < len(grid[0]) and grid[nr][nc] == ".":
            yield nr, nc


def shortest_path(grid, start, goal):
    queue = deque([(start, 0)])
    seen = {start}
    while queue:
        (r, c), dist = queue.popleft()
        if (r, c) == goal:
            return dist
        for nxt in neighbours(grid, r, c):
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, dist + 1))
    return -1
