# entry: sort_items([("pen", 3, 2), ("ink", 10, 1), ("pad", 4, 5)])
from dataclasses import dataclass, field


@dataclass(order=True)
class Item:
    cost: int = field(init=False)
    name: str = field(compare=False)
    price: int = field(compare=False)
    qty: int = field(compare=False)

    def __post_init__(self):
        self.cost = self.price * self.qty


def sort_items(rows):
    items = [Item(name, price, qty) for name, price, qty in rows]
    items.sort()
    return [(i.name, i.cost) for i in items]
