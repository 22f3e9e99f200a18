# entry: resize(3, 4, 2)
# entry: resize(1, 1, 0)


class Rectangle:
    def __init__(self, width, height):
        self.width = width
        self.height = height

    @property
    def area(self):
        return self.width * self.height

    @property
    def perimeter(self):
        return 2 * (self.width + self.height)

    def __repr__(self):
        return f"Rectangle({self.width}, {self.height})"


def resize(w, h, factor):
    r = Rectangle(w, h)
    before = r.area
    r.width *= factor
    r.height *= factor
    return r, before, r.area, r.perimeter
