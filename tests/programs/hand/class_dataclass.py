# entry: nearest([(1, 2), (5, 5), (-1, 0)], 4, 4)
# entry: nearest([], 0, 0)
from dataclasses import dataclass, field


@dataclass
class Point:
    x: int
    y: int

    def dist2(self, other):
        return (self.x - other.x) ** 2 + (self.y - other.y) ** 2


@dataclass
class Cloud:
    points: list = field(default_factory=list)

    def add(self, x, y):
        self.points.append(Point(x, y))


def nearest(pairs, qx, qy):
    cloud = Cloud()
    for x, y in pairs:
        cloud.add(x, y)
    query = Point(qx, qy)
    best = None
    for p in cloud.points:
        if best is None or p.dist2(query) < best.dist2(query):
            best = p
    return best
