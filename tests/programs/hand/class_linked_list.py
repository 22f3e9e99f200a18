# entry: build_and_reverse([1, 2, 3, 4])
# entry: build_and_reverse([])


class Node:
    def __init__(self, value, next_node=None):
        self.value = value
        self.next = next_node


def to_list(head):
    out = []
    while head is not None:
        out.append(head.value)
        head = head.next
    return out


def build_and_reverse(values):
    head = None
    for v in reversed(values):
        head = Node(v, head)
    prev = None
    while head:
        head.next, prev, head = prev, head, head.next
    return to_list(prev)
