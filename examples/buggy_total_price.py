# Run: python3 examples/agent_debug_loop.py  (an agent loop that finds the bug below by stepping through ndb)
"""A function with a bug for the agent loop example: the discount misses items priced exactly at the threshold."""


def total_price(prices, discount_from):
    """The sum of `prices`, with 10% off every item priced at or above `discount_from`.

    >>> total_price([5, 20, 30], 20)
    50.0
    """
    total = 0
    for price in prices:
        if price > discount_from:
            price = price * 0.9
        total += price
    return total
