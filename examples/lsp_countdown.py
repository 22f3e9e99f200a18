# Run: open in an editor with `ndb lsp` (docs/lsp.md) and use the "Suggest inputs for countdown" lens, or: python3 -m pytest tests/lsp -q
"""A function without any entry call yet: "suggest inputs" proposes some,
and the one you choose is written in as a doctest (or a pytest test, or an
`# ndb:` comment)."""


def countdown(n):
    steps = []
    while n > 0:
        steps.append(n)
        n -= 1
    return steps
