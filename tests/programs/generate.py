#!/usr/bin/env python3
"""Write the generated half of the program corpus: tests/programs/generated/.

    python3 tests/programs/generate.py            # rewrite generated/ (deterministic)
    python3 tests/programs/generate.py --check DIR  # only validate the .py files in DIR

Every program is drawn from one of the templates below with a seeded
random.Random, so the output is the same on every run and every machine.
Each candidate is then run in a child Python (twice, with two hash seeds):
it must load, every entry call must finish (returning, or raising where the
template says it may) in well under a second, its trace must stay small,
and its traced events and locals must not depend on the hash seed. Candidates
that fail are skipped; the decision is made on deterministic facts (event
counts, outcomes, trace equality), the wall-clock check is only a safety net.
"""

import hashlib
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "generated")
SEED = 20240611
TARGET_COUNT = 260
MAX_EVENTS_PER_ENTRY = 1500  # traced events (call/line/return/exception) of the file
MAX_SECONDS_PER_ENTRY = 1.0
MAX_LINES = 59

# ----------------------------------------------------------------------------
# Random building blocks
# ----------------------------------------------------------------------------

WORDS = [
    "apple", "river", "stone", "cloud", "tiger", "lemon", "piano", "ocean", "pixel",
    "mango", "orbit", "cedar", "delta", "ember", "flute", "grape", "house", "ivory",
    "jelly", "koala", "lunar", "maple", "noble", "olive", "pearl", "quill", "robin",
    "sugar", "tulip", "umbra", "vivid", "wheat", "xenon", "yacht", "zebra", "ant",
    "bee", "cat", "dog", "elk", "fox", "gnu", "hen", "owl", "pig", "yak", "a", "an",
]
NAME_PARTS = ["items", "values", "data", "nums", "seq", "xs", "entries", "batch", "row", "pool"]
VERBS = ["count", "tally", "measure", "scan", "score", "collect", "pick", "reduce", "build",
         "mix", "fold", "shape", "trace", "check", "rank", "merge", "split", "sift", "sum"]
NOUNS = ["values", "words", "marks", "points", "chars", "pairs", "runs", "parts", "steps",
         "cells", "tokens", "bits", "groups", "digits", "keys", "slots", "hits", "ticks"]


def func_name(rng, avoid=()):
    while True:
        name = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
        if name not in avoid:
            return name


def var_name(rng, avoid=()):
    while True:
        name = rng.choice(NAME_PARTS)
        if name not in avoid:
            return name


def int_list(rng, lo=-9, hi=20, min_len=0, max_len=8):
    return [rng.randint(lo, hi) for _ in range(rng.randint(min_len, max_len))]


def sentence(rng, min_words=0, max_words=6, digits=True):
    words = []
    for _ in range(rng.randint(min_words, max_words)):
        w = rng.choice(WORDS)
        roll = rng.random()
        if roll < 0.2:
            w = w.capitalize()
        elif roll < 0.28:
            w = w.upper()
        elif digits and roll < 0.38:
            w = w + str(rng.randint(0, 99))
        words.append(w)
    return " ".join(words)


def word_list(rng, min_len=0, max_len=7):
    return [rng.choice(WORDS) for _ in range(rng.randint(min_len, max_len))]


def call(name, *args):
    return f"{name}({', '.join(repr(a) for a in args)})"


def indent(lines, n=1):
    pad = "    " * n
    return [pad + line if line else line for line in lines]


# ----------------------------------------------------------------------------
# Templates: each returns (source_lines, entry_calls, may_raise)
# ----------------------------------------------------------------------------


def t_count_filter(rng):
    name = func_name(rng)
    seq = var_name(rng)
    cond = rng.choice([
        "v % k == 0", "v > k", "v < k and v != 0", "abs(v) >= k", "(v + k) % 3 == 1",
        "v * v > k * 4", "v % 2 == k % 2",
    ])
    style = rng.choice(["for", "while", "sum"])
    if style == "for":
        body = ["count = 0", "total = 0", f"for v in {seq}:", f"    if {cond}:",
                "        count += 1", "        total += v", "return count, total"]
    elif style == "while":
        body = ["i = 0", "hits = []", f"while i < len({seq}):", f"    v = {seq}[i]",
                f"    if {cond}:", "        hits.append(i)", "    i += 1", "return hits"]
    else:
        body = [f"matching = [v for v in {seq} if {cond}]",
                "return len(matching), sum(matching)"]
    src = [f"def {name}({seq}, k):"] + indent(body)
    entries = [call(name, int_list(rng), rng.randint(1, 6)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_string_transform(rng):
    name = func_name(rng)
    pred = rng.choice(["ch.isdigit()", "ch.isupper()", "ch.islower()", 'ch in "aeiou"',
                       'ch in "xyz0123"', "ch.isalpha() and ch < 'm'"])
    transform = rng.choice(["ch.upper()", "ch.lower()", '"*"', "ch * 2",
                            "str(ord(ch) % 10)", "ch.swapcase()"])
    sep = rng.choice(['"_"', '" "', '""', '"-"'])
    helper = rng.random() < 0.5
    src = []
    if helper:
        src += ["def convert(ch):", f"    if {pred}:", f"        return {transform}",
                "    return ch", "", ""]
    src += [f"def {name}(text):", "    out = []", "    for ch in text:"]
    if helper:
        src += ["        if ch == \" \":", f"            out.append({sep})", "        else:",
                "            out.append(convert(ch))"]
    else:
        src += [f"        if {pred}:", f"            out.append({transform})",
                '        elif ch == " ":', f"            out.append({sep})", "        else:",
                "            out.append(ch)"]
    src += ['    result = "".join(out)', "    return result"]
    entries = [call(name, sentence(rng)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_char_frequency(rng):
    helper = rng.choice(["tally", "histogram", "frequencies", "count_chars"])
    name = func_name(rng, avoid=(helper,))
    skip = rng.choice(['" "', '"a"', '"e"'])
    finish = rng.choice(["max", "sorted", "topk", "threshold"])
    src = [f"def {helper}(text):", "    counts = {}", "    for ch in text:",
           f"        if ch == {skip}:", "            continue",
           "        counts[ch] = counts.get(ch, 0) + 1", "    return counts", "", "",
           f"def {name}(text):", f"    counts = {helper}(text)", "    if not counts:",
           "        return None"]
    if finish == "max":
        src += ["    best = max(counts, key=counts.get)", "    return best, counts[best]"]
    elif finish == "sorted":
        src += ["    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))",
                "    return ordered[:3]"]
    elif finish == "topk":
        k = rng.randint(1, 3)
        src += ["    top = []", "    for ch, n in counts.items():", f"        if n >= {k}:",
                "            top.append(ch)", "    return sorted(top)"]
    else:
        src += ["    total = sum(counts.values())",
                "    return {ch: round(n / total, 2) for ch, n in counts.items() if n > 1}"]
    entries = [call(name, sentence(rng, digits=False)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_prefix_sums(rng):
    name = func_name(rng)
    seq = var_name(rng)
    op = rng.choice(["+", "*", "max", "min"])
    if op in ("+", "*"):
        update = f"acc = acc {op} x"
        start = "0" if op == "+" else "1"
    else:
        update = f"acc = {op}(acc, x)"
        start = f"{seq}[0] if {seq} else 0"
    loop = rng.choice(["for", "while"])
    src = [f"def {name}({seq}):", f"    acc = {start}", "    out = []"]
    if loop == "for":
        src += [f"    for x in {seq}:", f"        {update}", "        out.append(acc)"]
    else:
        src += ["    i = 0", f"    while i < len({seq}):", f"        x = {seq}[i]",
                f"        {update}", "        out.append(acc)", "        i += 1"]
    src += ["    return out"]
    lo, hi = (-3, 4) if op == "*" else (-9, 15)
    entries = [call(name, int_list(rng, lo, hi, 0, 6)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_recursion_numeric(rng):
    kind = rng.choice(["sum_digits", "power", "gcd", "paths", "reverse", "palindrome", "count_down"])
    if kind == "sum_digits":
        src = ["def digit_sum(n):", "    if n < 10:", "        return n",
               "    return n % 10 + digit_sum(n // 10)"]
        entries = [call("digit_sum", rng.randint(0, 99999)) for _ in range(rng.randint(1, 3))]
    elif kind == "power":
        src = ["def fast_power(base, exp):", "    if exp == 0:", "        return 1",
               "    half = fast_power(base, exp // 2)", "    if exp % 2 == 0:",
               "        return half * half", "    return half * half * base"]
        entries = [call("fast_power", rng.randint(-3, 5), rng.randint(0, 12))
                   for _ in range(rng.randint(1, 3))]
    elif kind == "gcd":
        src = ["def gcd(a, b):", "    if b == 0:", "        return a", "    return gcd(b, a % b)",
               "", "", "def lcm(a, b):", "    return a * b // gcd(a, b)"]
        entries = [call(rng.choice(["gcd", "lcm"]), rng.randint(1, 200), rng.randint(1, 200))
                   for _ in range(rng.randint(1, 3))]
    elif kind == "paths":
        src = ["def grid_paths(rows, cols):", "    if rows == 1 or cols == 1:", "        return 1",
               "    return grid_paths(rows - 1, cols) + grid_paths(rows, cols - 1)"]
        entries = [call("grid_paths", rng.randint(1, 4), rng.randint(1, 4))
                   for _ in range(rng.randint(1, 2))]
    elif kind == "reverse":
        src = ["def reverse_text(s):", '    if s == "":', "        return s",
               "    return reverse_text(s[1:]) + s[0]"]
        entries = [call("reverse_text", rng.choice(WORDS) + rng.choice(["", "!", "12"]))
                   for _ in range(rng.randint(1, 3))]
    elif kind == "palindrome":
        src = ["def is_pal(s, lo, hi):", "    if lo >= hi:", "        return True",
               "    if s[lo] != s[hi]:", "        return False", "    return is_pal(s, lo + 1, hi - 1)",
               "", "", "def check(word):", "    cleaned = word.lower()",
               "    return is_pal(cleaned, 0, len(cleaned) - 1)"]
        pool = ["level", "Racecar", "noon", "abcba", "abca", "x", "", "stats", "tiger", "deed"]
        entries = [call("check", rng.choice(pool)) for _ in range(rng.randint(1, 3))]
    else:
        step = rng.randint(1, 3)
        src = ["def countdown(n):", "    if n <= 0:", "        return [0]",
               f"    return [n] + countdown(n - {step})"]
        entries = [call("countdown", rng.randint(0, 15)) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.3:
        src = [f"# recursion: {kind}"] + src
    return src, entries, False


def t_helper_comprehension(rng):
    helper = rng.choice(["transform", "adjust", "weigh", "scale_one", "tweak"])
    name = func_name(rng, avoid=(helper,))
    a, b, c = rng.randint(-3, 3), rng.randint(-5, 5), rng.randint(2, 5)
    branch = rng.random() < 0.5
    src = [f"def {helper}(x):"]
    if branch:
        src += [f"    if x % {c} == 0:", f"        return x // {c}", f"    return {a} * x + {b}"]
    else:
        src += [f"    y = x * x * {a}", f"    return y + {b} * x"]
    keep = rng.choice(["y > 0", "y % 2 == 0", "y != 0", "abs(y) < 20"])
    agg = rng.choice(["sum(kept)", "max(kept, default=None)", "len(kept)", "sorted(kept)"])
    src += ["", "", f"def {name}(values):", f"    mapped = [{helper}(v) for v in values]",
            f"    kept = [y for y in mapped if {keep}]", f"    return mapped, {agg}"]
    entries = [call(name, int_list(rng, -6, 12, 0, 6)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_exceptions_caught(rng):
    kind = rng.choice(["divide", "parse", "lookup", "index"])
    name = func_name(rng)
    final = rng.random() < 0.5
    use_else = rng.random() < 0.5
    if kind == "divide":
        op, exc = "a / b" if rng.random() < 0.5 else "a // b", "ZeroDivisionError"
        arg = "pairs"
        head = ["for a, b in pairs:"]
        risky = [f"value = {op}"]
        handler = ["value = None", "errors += 1"]
        data = [(rng.randint(-9, 9), rng.choice([0, 0, 1, 2, 3, -4])) for _ in range(rng.randint(1, 5))]
    elif kind == "parse":
        exc, arg = "ValueError", "texts"
        head = ["for t in texts:"]
        risky = ["value = int(t)"]
        handler = ["value = len(t)", "errors += 1"]
        data = [rng.choice(["1", "22", "-3", "x", "4a", "", "007", rng.choice(WORDS)])
                for _ in range(rng.randint(1, 5))]
    elif kind == "lookup":
        exc, arg = "KeyError", "keys"
        head = [f"table = {{{', '.join(repr(w) + ': ' + str(i) for i, w in enumerate(WORDS[:4]))}}}",
                "for key in keys:"]
        risky = ["value = table[key]"]
        handler = ["value = -1", "errors += 1"]
        data = [rng.choice(WORDS[:6]) for _ in range(rng.randint(1, 5))]
    else:
        exc, arg = "IndexError", "positions"
        head = ["source = [10, 20, 30]", "for p in positions:"]
        risky = ["value = source[p]"]
        handler = ["value = 0", "errors += 1"]
        data = [rng.randint(-5, 5) for _ in range(rng.randint(1, 5))]
    body = ["results = []", "errors = 0"] + head
    tbody = ["try:"] + indent(risky) + [f"except {exc}:"] + indent(handler)
    if use_else:
        tbody += ["else:", "    value = value * 2" if kind != "parse" else "    value = -value"]
    if final:
        tbody += ["finally:", "    results.append(value)"]
    else:
        tbody += ["results.append(value)"]
    body += indent(tbody) + ["return results, errors"]
    src = [f"def {name}({arg}):"] + indent(body)
    entries = [call(name, data)]
    if rng.random() < 0.5:
        entries.append(call(name, data[:1]))
    return src, entries, False


CLASS_KINDS = ["stack", "queue", "accumulator", "inventory", "matrix", "tracker"]


def t_class(rng):
    kind = rng.choice(CLASS_KINDS)
    if kind == "stack":
        src = ["class Stack:", "    def __init__(self):", "        self.items = []", "",
               "    def push(self, x):", "        self.items.append(x)", "",
               "    def pop(self):", "        if not self.items:", "            return None",
               "        return self.items.pop()", "", "",
               "def run(ops):", "    s = Stack()", "    popped = []", "    for op in ops:",
               "        if op < 0:", "            popped.append(s.pop())", "        else:",
               "            s.push(op)", "    return popped, s.items"]
        entries = [call("run", int_list(rng, -3, 9, 1, 8)) for _ in range(rng.randint(1, 2))]
    elif kind == "queue":
        cap = rng.randint(2, 4)
        src = ["class BoundedQueue:", "    def __init__(self, capacity):",
               "        self.capacity = capacity", "        self.items = []", "        self.dropped = 0", "",
               "    def put(self, x):", "        if len(self.items) >= self.capacity:",
               "            self.items.pop(0)", "            self.dropped += 1",
               "        self.items.append(x)", "", "",
               "def run(values):", f"    q = BoundedQueue({cap})", "    for v in values:",
               "        q.put(v)", "    return q.items, q.dropped"]
        entries = [call("run", int_list(rng, 0, 9, 0, 7)) for _ in range(rng.randint(1, 2))]
    elif kind == "accumulator":
        mode = rng.choice(["+", "-", "*"])
        src = ["class Accumulator:", "    def __init__(self, start=0):", "        self.value = start",
               "        self.history = []", "", "    def apply(self, x):",
               f"        self.value = self.value {mode} x", "        self.history.append(self.value)",
               "        return self", "", "    @property", "    def last(self):",
               "        return self.history[-1] if self.history else None", "", "",
               "def run(values, start):", "    acc = Accumulator(start)", "    for v in values:",
               "        acc.apply(v)", "    return acc.value, acc.last"]
        entries = [call("run", int_list(rng, -4, 6, 0, 5), rng.randint(-2, 3))
                   for _ in range(rng.randint(1, 2))]
    elif kind == "inventory":
        src = ["class Inventory:", "    def __init__(self):", "        self.stock = {}", "",
               "    def add(self, name, qty):", "        self.stock[name] = self.stock.get(name, 0) + qty", "",
               "    def remove(self, name, qty):", "        have = self.stock.get(name, 0)",
               "        if qty > have:", "            return False", "        self.stock[name] = have - qty",
               "        return True", "", "",
               "def run(orders):", "    inv = Inventory()", "    failed = []",
               "    for name, qty in orders:", "        if qty >= 0:", "            inv.add(name, qty)",
               "        elif not inv.remove(name, -qty):", "            failed.append(name)",
               "    return inv.stock, failed"]
        orders = [(rng.choice(WORDS[:5]), rng.randint(-4, 5)) for _ in range(rng.randint(1, 6))]
        entries = [call("run", orders)]
    elif kind == "matrix":
        src = ["class Grid:", "    def __init__(self, rows):", "        self.rows = [list(r) for r in rows]", "",
               "    def column(self, j):", "        return [r[j] for r in self.rows]", "",
               "    def transpose(self):", "        return Grid([self.column(j) for j in range(len(self.rows[0]))])", "",
               "    def __repr__(self):", "        return f\"Grid({self.rows})\"", "", "",
               "def run(rows):", "    g = Grid(rows)", "    t = g.transpose()",
               "    return t, [sum(r) for r in t.rows]"]
        r, c = rng.randint(1, 3), rng.randint(1, 3)
        entries = [call("run", [[rng.randint(0, 9) for _ in range(c)] for _ in range(r)])]
    else:
        src = ["class Tracker:", "    def __init__(self, limit):", "        self.limit = limit",
               "        self.best = None", "        self.seen = 0", "",
               "    def offer(self, x):", "        self.seen += 1", "        if x > self.limit:",
               "            return False", "        if self.best is None or x > self.best:",
               "            self.best = x", "        return True", "", "",
               "def run(values, limit):", "    t = Tracker(limit)",
               "    accepted = [v for v in values if t.offer(v)]", "    return t.best, t.seen, accepted"]
        entries = [call("run", int_list(rng, 0, 20, 0, 6), rng.randint(5, 15))
                   for _ in range(rng.randint(1, 2))]
    return src, entries, False


def t_generator(rng):
    gen = rng.choice(["produce", "emit", "stream", "walk"])
    name = func_name(rng, avoid=(gen,))
    cond = rng.choice(["v % 2 == 0", "v > k", "v != k", "v % 3 != 0"])
    out = rng.choice(["v * k", "v + k", "-v", "(v, k)"])
    consume = rng.choice(["for", "list", "sum", "next"])
    if out == "(v, k)" and consume == "sum":
        consume = "list"
    src = [f"def {gen}(values, k):", "    for v in values:", f"        if {cond}:",
           f"            yield {out}"]
    if rng.random() < 0.4:
        src += ["    yield from range(k)"]
        if out == "(v, k)":
            consume = "list"
    src += ["", "", f"def {name}(values, k):"]
    if consume == "for":
        src += ["    got = []", f"    for item in {gen}(values, k):", "        got.append(item)",
                "    return got"]
    elif consume == "list":
        src += [f"    return list({gen}(values, k))"]
    elif consume == "sum":
        src += [f"    total = sum({gen}(values, k))", "    return total"]
    else:
        src += [f"    it = {gen}(values, k)", "    first = next(it, None)",
                "    second = next(it, None)", "    return first, second"]
    entries = [call(name, int_list(rng, -5, 12, 0, 6), rng.randint(0, 4))
               for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_sort_key(rng):
    name = func_name(rng)
    key = rng.choice(["lambda p: p[1]", "lambda p: (-p[1], p[0])", "lambda p: len(p[0])",
                      "lambda p: (p[1] % 3, p[0])", "lambda p: p[0][-1]"])
    rev = rng.choice(["", ", reverse=True"])
    n = rng.randint(1, 3)
    src = [f"def {name}(people):", f"    ordered = sorted(people, key={key}{rev})",
           f"    top = [name for name, _ in ordered[:{n}]]"]
    if rng.random() < 0.5:
        src += ["    total = 0", "    for _, score in ordered:", "        total += score",
                "    return top, total"]
    else:
        src += ["    return top, ordered"]
    people = [(rng.choice(WORDS[:30]), rng.randint(0, 100)) for _ in range(rng.randint(1, 6))]
    entries = [call(name, people)]
    return src, entries, False


def t_zip_pairs(rng):
    name = func_name(rng)
    op = rng.choice(["a - b", "a * b", "max(a, b)", "a if a > b else -b", "(a + b) % 7"])
    pos = rng.random() < 0.5
    src = [f"def {name}(left, right):", "    results = []"]
    if pos:
        src += ["    wins = []", "    for i, (a, b) in enumerate(zip(left, right)):",
                f"        results.append({op})", "        if a > b:", "            wins.append(i)",
                "    return results, wins"]
    else:
        src += ["    for a, b in zip(left, right):", f"        results.append({op})",
                "    longest = max(len(left), len(right))", "    return results, longest - len(results)"]
    entries = [call(name, int_list(rng, -5, 9, 0, 5), int_list(rng, -5, 9, 0, 5))
               for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_int_sets(rng):
    name = func_name(rng)
    ops = rng.sample(["a & b", "a | b", "a - b", "b - a", "a ^ b"], 2)
    src = [f"def {name}(xs, ys):", "    a = set(xs)", "    b = set(ys)",
           f"    first = sorted({ops[0]})", f"    second = sorted({ops[1]})"]
    if rng.random() < 0.5:
        src += ["    seen = set()", "    dupes = []", "    for x in xs:", "        if x in seen:",
                "            dupes.append(x)", "        seen.add(x)", "    return first, second, dupes"]
    else:
        src += ["    return first, second, len(a) - len(b)"]
    entries = [call(name, int_list(rng, 0, 9, 0, 7), int_list(rng, 0, 9, 0, 7))
               for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_matrix(rng):
    name = func_name(rng)
    kind = rng.choice(["row_sums", "col_max", "zeros", "flatten", "border"])
    src = [f"def {name}(grid):"]
    if kind == "row_sums":
        src += ["    sums = []", "    for row in grid:", "        s = 0", "        for x in row:",
                "            s += x", "        sums.append(s)", "    return sums"]
    elif kind == "col_max":
        src += ["    best = list(grid[0])", "    for row in grid[1:]:",
                "        for j, x in enumerate(row):", "            if x > best[j]:",
                "                best[j] = x", "    return best"]
    elif kind == "zeros":
        src += ["    spots = []", "    for i, row in enumerate(grid):", "        for j, x in enumerate(row):",
                "            if x == 0:", "                spots.append((i, j))", "    return spots"]
    elif kind == "flatten":
        src += ["    flat = [x for row in grid for x in row]", "    return flat, sum(flat) // max(len(flat), 1)"]
    else:
        src += ["    h, w = len(grid), len(grid[0])", "    total = 0", "    for i in range(h):",
                "        for j in range(w):", "            if i in (0, h - 1) or j in (0, w - 1):",
                "                total += grid[i][j]", "    return total"]
    r, c = rng.randint(1, 4), rng.randint(1, 4)
    entries = [call(name, [[rng.randint(-2, 9) for _ in range(c)] for _ in range(r)])
               for _ in range(rng.randint(1, 2))]
    return src, entries, False


def t_words(rng):
    name = func_name(rng)
    kind = rng.choice(["reverse_each", "filter_len", "acronym", "title", "longest"])
    src = [f"def {name}(text):", "    words = text.split()"]
    if kind == "reverse_each":
        src += ["    flipped = [w[::-1] for w in words]", '    return " ".join(flipped)']
    elif kind == "filter_len":
        n = rng.randint(2, 5)
        src += ["    kept = []", "    for w in words:", f"        if len(w) >= {n}:",
                "            kept.append(w.lower())", '    return ",".join(kept), len(kept)']
    elif kind == "acronym":
        src += ['    letters = ""', "    for w in words:", "        if w[0].isalpha():",
                "            letters += w[0].upper()", "    return letters"]
    elif kind == "title":
        src += ['    small = ("a", "an", "of", "the", "cat")', "    out = []",
                "    for i, w in enumerate(words):", "        if i > 0 and w.lower() in small:",
                "            out.append(w.lower())", "        else:", "            out.append(w.capitalize())",
                '    return " ".join(out)']
    else:
        src += ['    best = ""', "    for w in words:", "        if len(w) > len(best):",
                "            best = w", "    return best, words.index(best) if best else -1"]
    entries = [call(name, sentence(rng)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_numeric_while(rng):
    kind = rng.choice(["collatz", "reverse", "prime", "isqrt", "bits", "digits_product"])
    if kind == "collatz":
        src = ["def steps_to_one(n):", "    steps = 0", "    while n != 1:", "        if n % 2:",
               "            n = 3 * n + 1", "        else:", "            n //= 2", "        steps += 1",
               "    return steps"]
        entries = [call("steps_to_one", rng.randint(1, 30)) for _ in range(rng.randint(1, 2))]
    elif kind == "reverse":
        src = ["def reverse_number(n):", "    out = 0", "    while n > 0:", "        out = out * 10 + n % 10",
               "        n //= 10", "    return out"]
        entries = [call("reverse_number", rng.randint(0, 99999)) for _ in range(rng.randint(1, 3))]
    elif kind == "prime":
        src = ["def is_prime(n):", "    if n < 2:", "        return False", "    d = 2",
               "    while d * d <= n:", "        if n % d == 0:", "            return False",
               "        d += 1", "    return True", "", "",
               "def primes_in(lo, hi):", "    return [n for n in range(lo, hi) if is_prime(n)]"]
        lo = rng.randint(0, 40)
        entries = [call("primes_in", lo, lo + rng.randint(1, 12))]
        if rng.random() < 0.5:
            entries.append(call("is_prime", rng.randint(0, 100)))
    elif kind == "isqrt":
        src = ["def int_sqrt(n):", "    lo, hi = 0, n", "    while lo < hi:", "        mid = (lo + hi + 1) // 2",
               "        if mid * mid <= n:", "            lo = mid", "        else:", "            hi = mid - 1",
               "    return lo"]
        entries = [call("int_sqrt", rng.randint(0, 500)) for _ in range(rng.randint(1, 3))]
    elif kind == "bits":
        src = ["def bit_report(n):", "    ones = 0", "    length = 0", "    while n:",
               "        ones += n & 1", "        n >>= 1", "        length += 1", "    return ones, length"]
        entries = [call("bit_report", rng.randint(0, 1000)) for _ in range(rng.randint(1, 3))]
    else:
        src = ["def digits_product(n):", "    product = 1", "    while True:", "        n, d = divmod(n, 10)",
               "        product *= d", "        if n == 0:", "            break", "    return product"]
        entries = [call("digits_product", rng.randint(0, 9999)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_grouping(rng):
    name = func_name(rng)
    kind = rng.choice(["remainder", "first_letter", "length", "sign"])
    if kind == "remainder":
        m = rng.randint(2, 4)
        key, arg = f"x % {m}", "values"
        data = int_list(rng, 0, 20, 0, 8)
    elif kind == "first_letter":
        key, arg = "x[0]", "words"
        data = word_list(rng, 0, 7)
    elif kind == "length":
        key, arg = "len(x)", "words"
        data = word_list(rng, 0, 7)
    else:
        key, arg = '"neg" if x < 0 else ("zero" if x == 0 else "pos")', "values"
        data = int_list(rng, -5, 5, 0, 8)
    setdefault = rng.random() < 0.5
    src = [f"def {name}({arg}):", "    groups = {}", f"    for x in {arg}:", f"        key = {key}"]
    if setdefault:
        src += ["        groups.setdefault(key, []).append(x)"]
    else:
        src += ["        if key not in groups:", "            groups[key] = []", "        groups[key].append(x)"]
    src += ["    sizes = {k: len(v) for k, v in groups.items()}", "    return groups, sizes"]
    entries = [call(name, data)]
    return src, entries, False


def t_stack_algorithms(rng):
    kind = rng.choice(["brackets", "rpn", "dedupe_adjacent"])
    if kind == "brackets":
        src = ["def balanced(text):", '    pairs = {")": "(", "]": "[", "}": "{"}', "    stack = []",
               "    for ch in text:", '        if ch in "([{":', "            stack.append(ch)",
               "        elif ch in pairs:", "            if not stack or stack.pop() != pairs[ch]:",
               "                return False", "    return not stack"]
        pool = ["()", "([]{})", "(]", "((", "a(b)c", "{[()]}", "", ")(", "[(])", "(()())"]
        entries = [call("balanced", rng.choice(pool)) for _ in range(rng.randint(1, 3))]
    elif kind == "rpn":
        src = ["def apply(op, a, b):", '    if op == "+":', "        return a + b", '    if op == "-":',
               "        return a - b", "    return a * b", "", "",
               "def rpn(tokens):", "    stack = []", "    for tok in tokens:", '        if tok in "+-*":',
               "            b = stack.pop()", "            a = stack.pop()", "            stack.append(apply(tok, a, b))",
               "        else:", "            stack.append(int(tok))", "    return stack[-1]"]
        pool = [["2", "3", "+"], ["4", "1", "-", "3", "*"], ["5"], ["1", "2", "3", "*", "+"],
                ["9", "3", "-", "2", "-"], ["2", "2", "*", "2", "*"]]
        entries = [call("rpn", rng.choice(pool)) for _ in range(rng.randint(1, 2))]
    else:
        src = ["def squash(text):", "    out = []", "    for ch in text:", "        if out and out[-1] == ch:",
               "            out.pop()", "        else:", "            out.append(ch)", '    return "".join(out)']
        pool = ["abbaca", "azxxzy", "aabb", "abc", "", "mississippi", "aaa"]
        entries = [call("squash", rng.choice(pool)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_early_return(rng):
    name = func_name(rng)
    kind = rng.choice(["first_match", "first_dupe", "all_check"])
    cond = rng.choice(["x > limit", "x % limit == 0", "x < -limit", "x == limit"])
    if kind == "first_match":
        src = [f"def {name}(values, limit):", "    for i, x in enumerate(values):", f"        if {cond}:",
               "            return i, x", "    return -1, None"]
        entries = [call(name, int_list(rng, -9, 15, 0, 7), rng.randint(1, 6)) for _ in range(rng.randint(1, 3))]
    elif kind == "first_dupe":
        src = [f"def {name}(values):", "    seen = []", "    for x in values:", "        if x in seen:",
               "            return x", "        seen.append(x)", "    return None"]
        entries = [call(name, int_list(rng, 0, 6, 0, 7)) for _ in range(rng.randint(1, 3))]
    else:
        src = [f"def {name}(values, limit):", "    if not values:", '        return "empty"',
               "    for x in values:", f"        if not ({cond}):", '            return "no"', '    return "yes"']
        entries = [call(name, int_list(rng, -3, 9, 0, 4), rng.randint(1, 3)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


def t_raising(rng):
    name = func_name(rng)
    exc = rng.choice(["ValueError", "TypeError", "KeyError", "RuntimeError"])
    check = rng.choice(["not values", "len(values) > 5", "min(values) < 0", "values[0] == 0"])
    helper = rng.random() < 0.5
    src = []
    if helper:
        src += ["def validate(values):", f"    if {check}:", f"        raise {exc}(\"bad input: \" + str(len(values)))",
                "    return values", "", "", f"def {name}(values):", "    values = validate(values)"]
    else:
        src += [f"def {name}(values):", f"    if {check}:", f"        raise {exc}(\"bad input\")"]
    src += ["    total = 0", "    for v in values:", "        total += v", "    return total / len(values)"]
    good = [rng.randint(1, 9) for _ in range(rng.randint(1, 4))]
    bad = {"not values": [], "len(values) > 5": [1, 2, 3, 4, 5, 6],
           "min(values) < 0": [3, -1, 2], "values[0] == 0": [0, 4]}[check]
    entries = [call(name, good), call(name, bad)]
    rng.shuffle(entries)
    return src, entries, True


def t_run_length(rng):
    style = rng.choice(["while", "for"])
    if style == "while":
        src = ["def encode(s):", "    out = []", "    i = 0", "    while i < len(s):", "        j = i",
               "        while j < len(s) and s[j] == s[i]:", "            j += 1",
               "        out.append((s[i], j - i))", "        i = j", "    return out"]
    else:
        src = ["def encode(s):", "    out = []", "    for ch in s:", "        if out and out[-1][0] == ch:",
               "            out[-1] = (ch, out[-1][1] + 1)", "        else:", "            out.append((ch, 1))",
               "    return out"]
    decode = rng.random() < 0.5
    if decode:
        src += ["", "", "def round_trip(s):", "    pairs = encode(s)",
                '    back = "".join(ch * n for ch, n in pairs)', "    return pairs, back == s"]
    fn = "round_trip" if decode else "encode"
    texts = ["".join(rng.choice("aab") * rng.randint(1, 3) for _ in range(rng.randint(0, 4)))
             for _ in range(rng.randint(1, 3))]
    return src, [call(fn, t) for t in texts], False


def t_memo(rng):
    kind = rng.choice(["stairs", "trib", "coins"])
    if kind == "stairs":
        steps = sorted(rng.sample([1, 2, 3], rng.randint(2, 3)))
        src = ["def ways(n, memo=None):", "    if memo is None:", "        memo = {}", "    if n < 0:",
               "        return 0", "    if n == 0:", "        return 1", "    if n in memo:",
               "        return memo[n]", f"    memo[n] = sum(ways(n - s, memo) for s in {steps})",
               "    return memo[n]"]
        entries = [call("ways", rng.randint(0, 8))]
    elif kind == "trib":
        src = ["CACHE = {0: 0, 1: 0, 2: 1}", "", "", "def trib(n):", "    if n in CACHE:",
               "        return CACHE[n]", "    value = trib(n - 1) + trib(n - 2) + trib(n - 3)",
               "    CACHE[n] = value", "    return value"]
        entries = [call("trib", rng.randint(0, 10))]
    else:
        coins = sorted(rng.sample([1, 2, 5, 10], rng.randint(1, 3)))
        src = ["def change(amount, coins, i=0):", "    if amount == 0:", "        return 1",
               "    if amount < 0 or i == len(coins):", "        return 0",
               "    return change(amount - coins[i], coins, i) + change(amount, coins, i + 1)"]
        entries = [call("change", rng.randint(0, 8), coins)]
    return src, entries, False


def t_list_manipulation(rng):
    name = func_name(rng)
    kind = rng.choice(["rotate", "chunk", "dedupe", "interleave", "compact"])
    if kind == "rotate":
        src = [f"def {name}(values, k):", "    if not values:", "        return values",
               "    k = k % len(values)", "    return values[-k:] + values[:-k]"]
        entries = [call(name, int_list(rng, 0, 9, 0, 6), rng.randint(0, 7)) for _ in range(rng.randint(1, 3))]
    elif kind == "chunk":
        src = [f"def {name}(values, size):", "    chunks = []", "    for start in range(0, len(values), size):",
               "        chunks.append(values[start:start + size])", "    return chunks"]
        entries = [call(name, int_list(rng, 0, 9, 0, 8), rng.randint(1, 3)) for _ in range(rng.randint(1, 2))]
    elif kind == "dedupe":
        src = [f"def {name}(values):", "    seen = set()", "    out = []", "    for v in values:",
               "        if v not in seen:", "            seen.add(v)", "            out.append(v)", "    return out"]
        entries = [call(name, int_list(rng, 0, 5, 0, 8)) for _ in range(rng.randint(1, 2))]
    elif kind == "interleave":
        src = [f"def {name}(a, b):", "    out = []", "    i = 0", "    while i < len(a) or i < len(b):",
               "        if i < len(a):", "            out.append(a[i])", "        if i < len(b):",
               "            out.append(b[i])", "        i += 1", "    return out"]
        entries = [call(name, int_list(rng, 0, 9, 0, 4), word_list(rng, 0, 3)) for _ in range(rng.randint(1, 2))]
    else:
        src = [f"def {name}(values):", "    out = [v for v in values if v]", "    removed = len(values) - len(out)",
               "    return out, removed"]
        entries = [call(name, [rng.choice([0, None, "", 3, "x", 7, [], [1]]) for _ in range(rng.randint(0, 6))])]
    return src, entries, False


def t_dict_ops(rng):
    name = func_name(rng)
    kind = rng.choice(["invert", "merge", "filter", "zip_dict"])
    if kind == "invert":
        src = [f"def {name}(mapping):", "    out = {}", "    for k, v in mapping.items():",
               "        out.setdefault(v, []).append(k)", "    return out"]
        data = {w: rng.randint(0, 3) for w in rng.sample(WORDS[:20], rng.randint(0, 5))}
        entries = [call(name, data)]
    elif kind == "merge":
        src = [f"def {name}(a, b):", "    merged = dict(a)", "    for k, v in b.items():",
               "        merged[k] = merged.get(k, 0) + v", "    return merged, sorted(merged)"]
        entries = [call(name, {w: rng.randint(1, 9) for w in rng.sample(WORDS[:8], rng.randint(0, 3))},
                        {w: rng.randint(1, 9) for w in rng.sample(WORDS[:8], rng.randint(0, 3))})]
    elif kind == "filter":
        t = rng.randint(1, 6)
        src = [f"def {name}(scores):", f"    passed = {{k: v for k, v in scores.items() if v >= {t}}}",
               "    failed = [k for k in scores if k not in passed]", "    return passed, failed"]
        entries = [call(name, {w: rng.randint(0, 9) for w in rng.sample(WORDS[:15], rng.randint(0, 5))})]
    else:
        src = [f"def {name}(keys, values):", "    table = dict(zip(keys, values))",
               "    extra = keys[len(values):]", "    for k in extra:", "        table[k] = None", "    return table"]
        entries = [call(name, rng.sample(WORDS[:10], rng.randint(0, 4)), int_list(rng, 0, 9, 0, 4))]
    return src, entries, False


def t_closure(rng):
    name = func_name(rng)
    op = rng.choice(["x * k", "x + k", "x - k", "k - x", "x % k if k else x"])
    src = ["def make(k):", "    def inner(x):", f"        return {op}", "    return inner", "", "",
           f"def {name}(values, k):", "    f = make(k)"]
    style = rng.choice(["map", "loop", "compose"])
    if style == "map":
        src += ["    return list(map(f, values))"]
    elif style == "loop":
        src += ["    out = []", "    for v in values:", "        out.append(f(v))", "    return out"]
    else:
        src += ["    g = make(k + 1)", "    return [g(f(v)) for v in values]"]
    entries = [call(name, int_list(rng, -5, 9, 0, 5), rng.randint(0, 4)) for _ in range(rng.randint(1, 2))]
    return src, entries, False


def t_while_true_accumulate(rng):
    name = func_name(rng)
    grow = rng.choice(["total += step", "total += step * step", "total = total * 2 + step"])
    src = [f"def {name}(target, step):", "    total = 0", "    rounds = 0", "    while True:",
           f"        {grow}", "        rounds += 1", "        if total >= target or rounds > 20:",
           "            break", "    return total, rounds"]
    entries = [call(name, rng.randint(0, 60), rng.randint(1, 6)) for _ in range(rng.randint(1, 3))]
    return src, entries, False


TEMPLATES = [
    t_count_filter, t_string_transform, t_char_frequency, t_prefix_sums, t_recursion_numeric,
    t_helper_comprehension, t_exceptions_caught, t_class, t_generator, t_sort_key, t_zip_pairs,
    t_int_sets, t_matrix, t_words, t_numeric_while, t_grouping, t_stack_algorithms, t_early_return,
    t_raising, t_run_length, t_memo, t_list_manipulation, t_dict_ops, t_closure, t_while_true_accumulate,
]


def top_level_names(source_lines):
    names = set()
    for line in source_lines:
        match = re.match(r"(?:def|class)\s+(\w+)|(\w+)\s*=", line)
        if match:
            names.add(match.group(1) or match.group(2))
    return names


def t_composite(rng):
    """Two other templates in one file, joined by a function that calls both."""
    while True:
        first, second = rng.sample(TEMPLATES, 2)
        src_a, entries_a, raise_a = first(rng)
        src_b, entries_b, raise_b = second(rng)
        names_a, names_b = top_level_names(src_a), top_level_names(src_b)
        if not (names_a & names_b) and "combined" not in names_a | names_b:
            break
    body = ["def combined():", f"    first = {entries_a[0]}", f"    second = {entries_b[0]}",
            "    return first, second"]
    entries = ["combined()"] + [rng.choice(entries_a + entries_b)]
    return src_a + ["", ""] + src_b + ["", ""] + body, entries, raise_a or raise_b


def render(template, index, source_lines, entries):
    header = [f"# entry: {e}" for e in entries]
    header.append(f"# generated by tests/programs/generate.py: template {template.__name__[2:]}, program {index}")
    return "\n".join(header + ["", ""] + source_lines) + "\n"


# ----------------------------------------------------------------------------
# Validation in a child interpreter
# ----------------------------------------------------------------------------

CHILD = r'''
import hashlib, importlib.util, json, os, re, sys, time
path = os.path.realpath(sys.argv[1])
entries = json.loads(sys.argv[2])
max_events = int(sys.argv[3])
ADDR = re.compile(r" at 0x[0-9a-fA-F]+>")
def r(v):
    try:
        return ADDR.sub(" at 0x...>", repr(v))[:400]
    except Exception as e:
        return "<repr %s>" % type(e).__name__
class TooLong(BaseException):
    pass
report = []
for entry in entries:
    spec = importlib.util.spec_from_file_location("ndb_check_target", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ndb_check_target"] = module
    spec.loader.exec_module(module)
    start = time.perf_counter()
    try:
        eval(entry, vars(module))
        plain = "ok"
    except Exception as e:
        plain = "raised " + type(e).__name__
    seconds = time.perf_counter() - start
    spec.loader.exec_module(module)  # fresh module-level state for the traced run
    events = []
    def tracer(frame, event, arg):
        if frame.f_code.co_filename != path:
            return None
        if event in ("call", "line"):
            events.append((event, frame.f_lineno, sorted((k, r(v)) for k, v in frame.f_locals.items())))
        elif event == "return":
            events.append((event, frame.f_lineno, r(arg)))
        elif event == "exception":
            events.append((event, frame.f_lineno, r(arg[1])))
        if len(events) > max_events:
            raise TooLong()
        return tracer
    sys.settrace(tracer)
    try:
        result = ("ok", r(eval(entry, vars(module))))
    except TooLong:
        result = ("too_long", None)
    except Exception as e:
        result = ("raised", r(e))
    finally:
        sys.settrace(None)
    digest = hashlib.sha256(json.dumps([events, result]).encode()).hexdigest()
    report.append({"entry": entry, "plain": plain, "seconds": seconds, "events": len(events),
                   "traced": result[0], "digest": digest})
print(json.dumps(report))
'''


def check_program(path, entries, may_raise):
    """Return None if the program is acceptable, else a reason string."""
    reports = []
    for hash_seed in ("0", "1"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        try:
            done = subprocess.run(
                [sys.executable, "-B", "-c", CHILD, path, json.dumps(entries), str(MAX_EVENTS_PER_ENTRY)],
                capture_output=True, text=True, timeout=10 + 3 * len(entries), env=env,
            )
        except subprocess.TimeoutExpired:
            return "timed out"
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            return f"child failed: {last}"
        reports.append(json.loads(done.stdout))
    first, second = reports
    for one, two in zip(first, second):
        if one["traced"] == "too_long":
            return f"trace too long: {one['entry']}"
        if one["seconds"] > MAX_SECONDS_PER_ENTRY:
            return f"too slow: {one['entry']}"
        if one["traced"] == "raised" and not may_raise:
            return f"raised unexpectedly: {one['entry']}"
        if one["digest"] != two["digest"]:
            return f"depends on the hash seed: {one['entry']}"
    if len(set(entries)) != len(entries):
        return "duplicate entry calls"
    return None


def entries_of(path):
    entries = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#"):
                break
            if line.startswith("# entry:"):
                entries.append(line[len("# entry:"):].strip())
    return entries


def check_directory(directory):
    bad = 0
    names = sorted(n for n in os.listdir(directory) if n.endswith(".py"))
    for name in names:
        path = os.path.join(directory, name)
        if name.startswith("never_"):
            continue  # intentionally non-terminating: checked by the pdb driver's selftest
        reason = check_program(path, entries_of(path), may_raise=True)
        if reason:
            bad += 1
            print(f"{name}: {reason}")
    print(f"checked {len(names)} files in {directory}: {bad} problems")
    return 1 if bad else 0


def generate():
    rng = random.Random(SEED)
    os.makedirs(OUT_DIR, exist_ok=True)
    for name in os.listdir(OUT_DIR):
        if name.startswith("gen_") and name.endswith(".py"):
            os.remove(os.path.join(OUT_DIR, name))
    written, rejected, seen_sources = 0, 0, set()
    per_template = {}
    attempts = cycle = 0
    while written < TARGET_COUNT:
        attempts += 1
        if attempts > TARGET_COUNT * 5:
            raise SystemExit("too many rejected candidates; check the templates")
        roll = rng.random()
        if roll < 0.25:
            template = t_composite
        elif roll < 0.8:
            template = TEMPLATES[cycle % len(TEMPLATES)]
            cycle += 1
        else:
            template = rng.choice(TEMPLATES)
        source_lines, entries, may_raise = template(rng)
        entries = list(dict.fromkeys(entries))
        text = render(template, written, source_lines, entries)
        body_key = hashlib.sha256("\n".join(source_lines).encode()).hexdigest()
        if len(text.splitlines()) > MAX_LINES or (body_key, tuple(entries)) in seen_sources:
            rejected += 1
            continue
        path = os.path.join(OUT_DIR, f"gen_{written:03d}.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        reason = check_program(path, entries, may_raise)
        if reason:
            rejected += 1
            print(f"skipped a {template.__name__[2:]} candidate: {reason}", file=sys.stderr)
            os.remove(path)
            continue
        seen_sources.add((body_key, tuple(entries)))
        per_template[template.__name__[2:]] = per_template.get(template.__name__[2:], 0) + 1
        written += 1
    print(f"wrote {written} programs to {OUT_DIR} ({rejected} candidates skipped)")
    print("per template: " + ", ".join(f"{k} {v}" for k, v in sorted(per_template.items())))
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "--check":
        return check_directory(argv[1])
    if argv:
        print(__doc__)
        return 2
    return generate()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
