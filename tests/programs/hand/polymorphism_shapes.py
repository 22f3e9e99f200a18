# entry: total_area([("circle", 1), ("square", 2), ("tri", 3, 4)])


class Shape:
    def area(self):
        raise NotImplementedError


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return round(3.14159 * self.r * self.r, 2)


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2


class Triangle(Shape):
    def __init__(self, base, height):
        self.base, self.height = base, height

    def area(self):
        return self.base * self.height / 2


def total_area(specs):
    kinds = {"circle": Circle, "square": Square, "tri": Triangle}
    shapes = [kinds[s[0]](*s[1:]) for s in specs]
    return sum(s.area() for s in shapes)
