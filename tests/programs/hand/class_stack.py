# entry: balanced("([]{()})")
# entry: balanced("(]")
# entry: balanced("((")


class Stack:
    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)

    def pop(self):
        return self.items.pop()

    def empty(self):
        return not self.items


def balanced(text):
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = Stack()
    for ch in text:
        if ch in "([{":
            stack.push(ch)
        elif stack.empty() or stack.pop() != pairs[ch]:
            return False
    return stack.empty()
