# entry: sorted_via_tree([5, 2, 8, 1, 9, 3])


class BST:
    def __init__(self, key):
        self.key = key
        self.left = None
        self.right = None

    def insert(self, key):
        if key < self.key:
            if self.left is None:
                self.left = BST(key)
            else:
                self.left.insert(key)
        else:
            if self.right is None:
                self.right = BST(key)
            else:
                self.right.insert(key)

    def inorder(self):
        left = self.left.inorder() if self.left else []
        right = self.right.inorder() if self.right else []
        return left + [self.key] + right


def sorted_via_tree(values):
    root = BST(values[0])
    for v in values[1:]:
        root.insert(v)
    return root.inorder()
