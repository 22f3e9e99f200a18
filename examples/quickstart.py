# Run: cargo run -q -- step examples/quickstart.py --call "mean_of_evens([3, 4, 7, 10])" --actions step_over,breakpoint:13,step_return,continue
"""A small function to debug: step through it, then try it on `[3, 5]` (no even numbers)."""


def is_even(n):
    return n % 2 == 0


def mean_of_evens(numbers):
    total = 0
    count = 0
    for n in numbers:
        if is_even(n):
            total += n
            count += 1
    return total / count
