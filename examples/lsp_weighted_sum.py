# Run: open in an editor with `ndb lsp` as its Python language server (docs/lsp.md), set a neural breakpoint on line 15, or: python3 -m pytest tests/lsp -q
"""A function to look at with ndb's language server: the predicted locals
appear at the end of a neural breakpoint's line, the predicted return value
at the return line, and hovering a variable shows its predicted value."""


def weighted_sum(values, weights):
    """Sum of values times weights.

    >>> weighted_sum([1, 2, 3], [3, 2, 1])
    10
    """
    total = 0
    for value, weight in zip(values, weights):
        total = total + value * weight
    return total
