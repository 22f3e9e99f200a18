#!/usr/bin/env python3
"""Generate the training corpus of small Python programs (issue 7, item 1).

    python3 inference/training/programs.py --count N --seed S [--out FILE] [--first-id K]

writes N JSON lines, one program each:

    {"id": "gen-S-000123", "source": "...", "calls": ["f(...)", ...], "family": "..."}

Programs are composed, not templated: a function body is a sequence of
statements drawn from typed building blocks (assignments, updates of
accumulators, if/elif/else, for and while loops, try/except, tuple unpacking,
helper calls, recursion, raises) whose expressions are drawn from typed
expression builders over the variables in scope, so every expression is
type-correct. A *family* biases which blocks and argument types are drawn
(string methods, dict counting, while loops, recursion, ...).

Safety is by construction, not by running anything: indexing is guarded or
deliberate, divisors are non-zero literals, loops run over finite sequences
that are never mutated while iterated, while loops come from terminating
patterns, nested iteration is bounded, recursion shrinks its argument and the
entry calls bound it. Deliberate exceptions (an uncaught IndexError, KeyError,
ValueError, a raise under a condition) are part of the mix.

Determinism: program K of seed S depends only on (S, K) (its own
random.Random seeded with the text "S:K"), never on hash order; the output is
the same bytes on every run, machine and PYTHONHASHSEED. Standard library only.
"""

import argparse
import json
import random
import sys

# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------

INT, STR, BOOL, LI, LS, DSI, SI, SS, LP = (
    "int", "str", "bool", "list_int", "list_str", "dict", "set_int", "set_str", "pairs")
SIZED = (STR, LI, LS, DSI, SI, SS, LP)
MUTABLE = (LI, LS, DSI, SI, SS, LP)
DEFAULT_SIZE = {STR: 40, LI: 10, LS: 8, DSI: 6, SI: 10, SS: 20, LP: 8, INT: None, BOOL: None}
EMPTY = {INT: "0", STR: "''", BOOL: "False", LI: "[]", LS: "[]", DSI: "{}", SI: "set()",
         SS: "set()", LP: "[]"}
COPY = {LI: "list(%s)", LS: "list(%s)", DSI: "dict(%s)", SI: "set(%s)", SS: "set(%s)",
        LP: "list(%s)"}
ELEM = {LI: INT, LS: STR, STR: STR, DSI: STR, SI: INT, SS: STR}

# The most iterations (product over nested loops, helper costs included) a
# generated construct may imply; keeps traces well under ~1,500 events.
LOOP_LIMIT = 150

# ---------------------------------------------------------------------------
# Name and literal pools
# ---------------------------------------------------------------------------

VAR_NAMES = {
    INT: ["n", "k", "x", "m", "limit", "target", "start", "step", "size", "num", "value",
          "width", "offset", "base", "shift", "threshold", "bound", "amount", "times", "cap"],
    STR: ["text", "s", "word", "line", "name", "label", "msg", "sentence", "prefix", "token",
          "phrase", "key", "code", "title", "tag", "st", "string", "data"],
    LI: ["nums", "values", "xs", "arr", "scores", "numbers", "items", "seq", "lst", "heights",
         "prices", "marks", "points", "readings", "a", "nums_list", "array"],
    LS: ["words", "names", "parts", "tokens", "lines", "tags", "labels", "strings", "fruits",
         "colors", "keys", "entries", "items"],
    DSI: ["counts", "d", "mapping", "inventory", "table", "freq", "stock", "ages", "totals",
          "lookup", "scores", "dic", "votes", "prices", "weights"],
    SI: ["seen", "unique", "visited", "pool", "found", "bucket", "marked"],
    SS: ["seen_words", "letters", "chars", "vocab", "used", "unique_words", "names_seen"],
    BOOL: ["found", "ok", "flag", "done", "valid", "changed", "matched", "has_neg", "strict"],
    LP: ["pairs", "ranked", "records", "rows", "ordered", "entries"],
}
ACC_NAMES = {
    INT: ["total", "count", "acc", "best", "result", "res", "hits", "score", "diff", "product",
          "longest", "streak", "matches", "misses", "steps", "cnt", "s", "ans", "balance"],
    STR: ["result", "out", "buf", "acc", "joined", "output", "res", "built", "cleaned",
          "encoded", "new_text", "s", "line", "word"],
    LI: ["result", "out", "res", "evens", "odds", "kept", "picked", "collected", "filtered",
         "merged", "acc", "ans", "positions", "diffs", "new_list", "output", "temp"],
    LS: ["result", "out", "kept", "parts", "chunks", "picked", "cleaned", "upper_words",
         "short", "long_words", "output", "res"],
    DSI: ["counts", "freq", "tally", "index", "groups", "lengths", "totals", "positions",
          "seen_at", "result", "d", "hist"],
    SI: ["seen", "unique", "found", "visited", "dups", "result"],
    SS: ["seen", "letters", "found", "vowels", "uniq", "result"],
    BOOL: ["found", "ok", "flag", "valid", "all_ok", "any_hit"],
    LP: ["pairs", "result", "out", "ranked", "items"],
}
ELEM_NAMES = {
    INT: ["x", "v", "num", "n", "item", "val", "d", "e", "value"],
    STR: ["w", "word", "part", "tok", "name", "item", "s", "t", "key"],
    "char": ["ch", "c", "letter", "char"],
    "index": ["i", "j", "idx", "pos", "k"],
    "key": ["k", "key", "name", "item"],
}
TEMP_NAMES = {
    INT: ["y", "tmp", "delta", "gap", "half", "rem", "q", "r", "mid", "z", "cur", "nxt", "w"],
    STR: ["piece", "head", "tail", "first", "last", "cur", "tmp", "sub", "frag", "z"],
    BOOL: ["is_big", "ok", "good", "hit", "cond", "keep"],
}
ENTRY_NAMES = ["solve", "process", "transform", "compute", "build", "summarize", "clean",
               "encode", "check", "normalize", "analyze", "rank", "group", "tally",
               "convert", "parse", "rearrange", "operation", "func", "main", "run",
               "count_items", "filter_items", "reduce_values", "make_report"]
HELPER_NAMES = ["helper", "combine", "is_valid", "adjust", "weigh", "norm", "tidy", "advance",
                "key_of", "bucket_of", "classify", "shift_one", "pad", "mirror", "digit_sum",
                "count_vowels", "scale", "first_of", "next_value", "score_of", "measure",
                "is_good", "accept", "wrap", "keep_it", "trim", "fold", "merge_two", "pick",
                "process_one", "g", "h", "aux", "step_fn"]
REC_NAMES = ["rec", "walk", "go", "descend", "recurse", "solve_rec", "count_down", "reduce_rec",
             "dfs", "collapse", "fold_rec", "sum_rec", "rev", "build_rec"]
CLASS_NAMES = ["Counter", "Tracker", "Stack", "Bag", "Account", "Buffer", "Ledger", "Tally",
               "Collector", "Register", "Queue", "Meter", "Recorder", "Box"]
WORDS = ["apple", "banana", "cherry", "river", "stone", "cloud", "tiger", "lemon", "piano",
         "ocean", "mango", "cedar", "delta", "ember", "grape", "house", "maple", "olive",
         "pearl", "robin", "sugar", "tulip", "wheat", "zebra", "cat", "dog", "fox", "owl",
         "bee", "sun", "moon", "star", "red", "blue", "green", "gold", "ice", "fire", "rain",
         "snow", "bread", "milk", "tea", "code", "data", "test", "node", "tree", "leaf",
         "root", "key", "box", "map", "hat", "cup", "pen", "level", "noon", "radar", "abc",
         "hello", "world", "python", "spam", "eggs", "foo", "bar", "baz", "alpha", "beta"]
SPLIT_SEPS = [",", "-", ":", "|", ";", "/"]
JOIN_SEPS = ["' '", "''", "','", "'-'", "', '", "'_'", "'|'", "':'", "'\\n'"]
CHAR_SETS = ["'aeiou'", "'AEIOU'", "'aeiouAEIOU'", "'xyz'", "'0123456789'", "' .,!'", "'abc'",
             "'!?'", "'-_'"]
EXC_MSGS = ["'bad value'", "'invalid input'", "'negative'", "'empty'", "'too large'",
            "'not found'", "'overflow'", "'unexpected'"]


def par(text):
    """Parenthesise `text` unless it is atomic (no top-level space, no sign)."""
    if text[:1] == "-":
        return "(" + text + ")"
    depth = 0
    quote = ""
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch == "'" or ch == '"':
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == " " and depth == 0:
            return "(" + text + ")"
    return text


def is_ident(text):
    return text.isidentifier()


# ---------------------------------------------------------------------------
# Variables, helpers, programs
# ---------------------------------------------------------------------------


class Var(object):
    __slots__ = ("name", "t", "size", "hint", "param", "touched")

    def __init__(self, name, t, size=0, hint="", param=False):
        self.name = name
        self.t = t
        self.size = DEFAULT_SIZE[t] if size == 0 else size
        self.hint = hint
        self.param = param
        self.touched = False


class Helper(object):
    __slots__ = ("name", "params", "ret", "cost", "raises", "hints")

    def __init__(self, name, params, ret, cost, raises=None, hints=None):
        self.name = name
        self.params = params  # list of types
        self.ret = ret
        self.cost = cost  # iterations implied by one call
        self.raises = raises
        self.hints = hints or [""] * len(params)  # per param: "" or "tiny"/"small"


class Program(object):
    def __init__(self, rng, family):
        self.r = rng
        self.family = family
        self.taken = set()  # global names: functions, classes (membership only)
        self.vocab = rng.sample(WORDS, 6)
        self.str_lits = []
        self.int_lits = []
        self.chunks = []  # source chunks (lists of lines), in order
        self.helpers = []
        self.entry = None  # (name, params)

    def take(self, pool):
        r = self.r
        for _ in range(6):
            name = r.choice(pool)
            if name not in self.taken:
                self.taken.add(name)
                return name
        k = 2
        while True:
            name = "%s%d" % (r.choice(pool), k)
            if name not in self.taken:
                self.taken.add(name)
                return name
            k += 1

    def word(self):
        w = self.r.choice(self.vocab)
        self.str_lits.append(w)
        return w


# ---------------------------------------------------------------------------
# Function bodies
# ---------------------------------------------------------------------------


class Func(object):
    """One function under construction: its lines, scope and loop context."""

    def __init__(self, prog, name, params, weights, max_lines, helper_ok=True, ind=1):
        self.p = prog
        self.r = prog.r
        self.name = name
        self.params = params
        self.env = list(params)
        self.used = set(v.name for v in params)
        self.unused = set(v.name for v in params)  # membership only: never iterated
        self.lines = []
        self.ind = ind
        self.frozen = []  # names that must not be mutated (iterated, loop counters)
        self.hot = []  # loop element variables, preferred in expressions
        self.accs = []  # accumulators of the loops being built
        self.idx = []  # (index name, sequence var, allowed offsets): safe seq[i]
        self.mult = 1
        self.loop_depth = 0
        self.nest = 0
        self.in_while = 0
        self.weights = weights
        self.max_lines = max_lines
        self.helper_ok = helper_ok
        self.ret_t = INT
        self.called = []

    # -- emission and scope ------------------------------------------------

    def emit(self, text):
        self.lines.append("    " * self.ind + text)

    def open(self, header):
        self.emit(header)
        self.ind += 1
        self.nest += 1
        return (len(self.env), len(self.lines), len(self.idx))

    def close(self, mark):
        env_len, line_len, idx_len = mark
        if len(self.lines) == line_len:
            self.emit("pass")
        del self.env[env_len:]
        del self.idx[idx_len:]
        self.ind -= 1
        self.nest -= 1

    def fresh(self, pool):
        r = self.r
        taken = self.p.taken
        for _ in range(5):
            name = r.choice(pool)
            if name not in self.used and name not in taken:
                self.used.add(name)
                return name
        base = r.choice(pool)
        k = 2
        while ("%s%d" % (base, k)) in self.used or ("%s%d" % (base, k)) in taken:
            k += 1
        name = "%s%d" % (base, k)
        self.used.add(name)
        return name

    def tmp(self, pool):
        """A comprehension variable: not bound in the function scope."""
        r = self.r
        names = [v.name for v in self.env]
        for _ in range(5):
            name = r.choice(pool)
            if name not in names and name not in self.p.taken and name not in self.used:
                return name
        return self.fresh(pool)

    def add(self, name, t, size=0, hint=""):
        v = Var(name, t, size, hint)
        self.env.append(v)
        self.unused.add(name)
        return v

    def lines_left(self):
        return self.max_lines - len(self.lines)

    # -- picking variables -------------------------------------------------

    def var(self, t, ex=None):
        r = self.r
        hot = [v for v in self.hot if v.t == t and v.name != ex]
        if hot and r.random() < 0.7:
            return hot[-1] if r.random() < 0.6 else r.choice(hot)
        cands = [v for v in self.env if v.t == t and v.name != ex]
        if not cands:
            return None
        return self._choose(cands)

    def _choose(self, cands):
        r = self.r
        unused = [v for v in cands if v.name in self.unused]
        if unused and r.random() < 0.6:
            v = unused[0] if r.random() < 0.5 else r.choice(unused)
        elif r.random() < 0.45:
            v = cands[-1]
        else:
            v = r.choice(cands)
        self.unused.discard(v.name)
        return v

    def var_of(self, types, ex=None):
        cands = [v for v in self.env if v.t in types and v.name != ex]
        if not cands:
            return None
        return self._choose(cands)

    def small_int(self):
        """An int expression safe as a range bound or repeat count."""
        r = self.r
        cands = [v for v in self.env if v.t == INT and v.size is not None and v.size <= 30]
        if cands and r.random() < 0.6:
            v = r.choice(cands)
            return v.name, v.size
        k = r.randint(2, 8)
        return str(k), k

    def hot_or(self, t, ex=None):
        v = self.var(t, ex)
        return v.name if v else None

    # -- literals ----------------------------------------------------------

    def lit_int(self, lo=0):
        r = self.r
        x = r.random()
        if x < 0.55:
            v = r.randint(max(lo, 0), 5)
        elif x < 0.88:
            v = r.randint(max(lo, 2), 10)
        else:
            v = r.choice((12, 15, 20, 25, 50, 100))
        self.p.int_lits.append(v)
        return str(v)

    def lit_word(self):
        return repr(self.p.word())

    def lit_char(self):
        r = self.r
        x = r.random()
        if x < 0.45:
            c = r.choice("aeiost")
        elif x < 0.75:
            c = r.choice(self.p.vocab)[0]
        else:
            c = r.choice(" ,.-!1")
        self.p.str_lits.append(c)
        return repr(c)

    def lit_sub(self):
        r = self.r
        x = r.random()
        if x < 0.4:
            return self.lit_char()
        w = r.choice(self.p.vocab)
        if x < 0.7:
            s = w[:r.randint(1, 3)]
        elif x < 0.85:
            s = w[-r.randint(1, 2):]
        else:
            s = w
        self.p.str_lits.append(s)
        return repr(s)

    def lit_str(self):
        r = self.r
        x = r.random()
        if x < 0.5:
            return self.lit_word()
        if x < 0.8:
            return self.lit_char()
        return r.choice(("''", "'-'", "'*'", "'#'", "'x'", "'ok'", "'none'", "'?'"))

    def key_expr(self, d=None):
        """A str key: a hot string, a str variable or a vocabulary word."""
        r = self.r
        if r.random() < 0.65:
            v = self.var(STR)
            if v is not None:
                return v.name
        return self.lit_word()

    # -- typed expressions --------------------------------------------------

    def pred(self, v):
        """A condition about the variable v (usually a loop element)."""
        r = self.r
        n = v.name
        if v.t == INT:
            k = r.randrange(10)
            if k < 3:
                return "%s %% %s %s %s" % (n, self.lit_int(2), r.choice(("==", "==", "!=")),
                                            r.choice(("0", "0", "1")))
            if k < 6:
                return "%s %s %s" % (n, r.choice(("<", ">", ">=", "<=", "==", "!=", ">", "<")),
                                     self.lit_int() if r.random() < 0.7 else "-" + self.lit_int(1))
            if k < 7:
                seq = self.var_of((LI, SI))
                if seq is not None and seq.name not in self.frozen:
                    return "%s %sin %s" % (n, r.choice(("", "not ")), seq.name)
            if k < 9:
                o = self.var(INT, n)
                if o is not None and o.name != n:
                    return "%s %s %s" % (n, r.choice(("<", ">", ">=", "<=", "==", "!=")), o.name)
            return "%s %s %s" % (n, r.choice((">", "<")), self.vexpr(INT, 1, n))
        if v.t == STR:
            if v.hint == "char":
                k = r.randrange(8)
                if k < 4:
                    return "%s.%s()" % (n, ("isdigit", "isalpha", "isupper", "islower")[k])
                if k < 6:
                    return "%s %sin %s" % (n, r.choice(("", "not ")), r.choice(CHAR_SETS))
                if k < 7:
                    o = self.var_of((STR, LS, SS))
                    if o is not None and o.name != n and o.hint != "char" and \
                            o.name not in self.frozen:
                        return "%s %sin %s" % (n, r.choice(("", "not ")), o.name)
                return "%s %s %s" % (n, r.choice(("==", "!=")), self.lit_char())
            k = r.randrange(9)
            if k < 2:
                return "%s.%s(%s)" % (n, r.choice(("startswith", "endswith")), self.lit_sub())
            if k < 4:
                return "len(%s) %s %s" % (n, r.choice((">", "<", ">=", "<=", "==")),
                                          self.lit_int(1))
            if k < 5:
                return "%s.%s()" % (n, r.choice(("isdigit", "isalpha", "isupper", "islower",
                                                 "istitle")))
            if k < 6:
                o = self.var_of((LS, SS, DSI, STR))
                if o is not None and o.name != n and o.hint != "char" and \
                        o.name not in self.frozen:
                    return "%s %sin %s" % (n, r.choice(("", "not ")), o.name)
            if k < 7:
                return "%s in %s" % (self.lit_sub(), n)
            if k < 8:
                return "%s %s %s" % (n, r.choice(("==", "!=", "<", ">")), self.lit_word())
            return "%s == %s[::-1]" % (n, n)
        if v.t == BOOL:
            return n
        return self.e_bool(1)

    def transform(self, v, t):
        """An expression of type t computed from the variable v."""
        r = self.r
        n = v.name
        if v.t == INT and t == INT:
            if r.random() < 0.3:
                return n
            return self.arith(n, None, 0)
        if v.t == STR and t == STR:
            k = r.randrange(12)
            if k < 2:
                return n
            if k < 6:
                return "%s.%s()" % (n, ("upper", "lower", "capitalize", "strip")[k - 2])
            if k < 7:
                return "%s[::-1]" % n
            if k < 8:
                return "%s + %s" % (n, self.lit_str())
            if k < 9:
                return "%s * 2" % n
            if k < 10 and v.hint != "char":
                return "%s[:%s]" % (n, self.lit_int(1))
            if k < 11:
                return "%s.replace(%s, %s)" % (n, self.lit_sub(), self.lit_str())
            return "%s[-1:]" % n
        if v.t == STR and t == INT:
            k = r.randrange(5)
            if k < 2:
                return "len(%s)" % n
            if k < 3 and v.hint == "char":
                return "ord(%s)" % n
            if k < 4:
                return "%s.count(%s)" % (n, self.lit_char())
            return "%s.find(%s)" % (n, self.lit_sub())
        if v.t == INT and t == STR:
            k = r.randrange(5)
            if k < 2:
                return "str(%s)" % n
            if k < 3:
                return "chr(ord('a') + %s %% 26)" % n
            if k < 4 and v.size is not None and v.size <= 30:
                return "%s * %s" % (r.choice(("'*'", "'-'", "'ab'", "'x'")), n)
            return "f'%s{%s}%s'" % (r.choice(("", "#", "<", "n=")), n, r.choice(("", "!", ">")))
        if t == BOOL:
            return self.pred(v)
        return self.expr(t, 1)

    def cond(self):
        """A condition, about a loop element or parameter when there is one."""
        r = self.r
        hs = self.hot
        if hs and r.random() < 0.6:
            return self.pred(hs[-1] if r.random() < 0.6 else r.choice(hs))
        return self.e_bool(0)

    def vexpr(self, t, d=1, ex=None):
        """An expression of type t that uses a variable when one fits."""
        e = self.expr(t, d, ex)
        for _ in range(4):
            if self.mentions(e):
                break
            e = self.expr(t, d, ex)
        return e

    def mentions(self, text):
        for v in self.env:
            if v.name in text:
                return True
        return False

    def cond_expr(self, a, c, b, d):
        text = "%s if %s else %s" % (a, c, b)
        return "(" + text + ")" if d > 0 else text

    def helper_call(self, t, d):
        if not self.helper_ok or d > 1:
            return None
        hs = [h for h in self.p.helpers if h.ret == t and h.cost * self.mult <= LOOP_LIMIT
              and h.name != self.name and not h.raises]
        if not hs:
            return None
        h = self.r.choice(hs)
        args = [self.arg_for(pt, hint) for pt, hint in zip(h.params, h.hints)]
        if h.name not in self.called:
            self.called.append(h.name)
        return "%s(%s)" % (h.name, ", ".join(args))

    def arg_for(self, t, hint=""):
        r = self.r
        if t == INT and hint:
            bound = 8 if hint == "tiny" else 30
            cands = [v for v in self.env if v.t == INT and v.size is not None
                     and v.size <= bound]
            if cands and r.random() < 0.8:
                v = r.choice(cands)
                return "abs(%s)" % v.name if v.param and v.hint != hint else v.name
            if bound == 8:
                return str(r.randint(0, 7))
            seqs = [v for v in self.env if v.t in SIZED and v.size <= 30]
            if seqs and r.random() < 0.6:
                return "len(%s)" % r.choice(seqs).name
            return str(r.randint(0, 12))
        v = self.var(t)
        if v is not None and r.random() < 0.8:
            return v.name
        return self.vexpr(t, 1)

    def expr(self, t, d=0, ex=None):
        if t == INT:
            return self.e_int(d, ex)
        if t == STR:
            return self.e_str(d, ex)
        if t == BOOL:
            return self.e_bool(d, ex)
        if t == LI:
            return self.e_li(d, ex)
        if t == LS:
            return self.e_ls(d, ex)
        if t == DSI:
            return self.e_dsi(d, ex)
        if t == SI:
            return self.e_si(d, ex)
        if t == SS:
            return self.e_ss(d, ex)
        return self.e_lp(d, ex)

    def idx_access(self, t):
        r = self.r
        cands = [p for p in self.idx if ELEM.get(p[1].t) == t]
        if not cands:
            return None
        iname, seq, offs = r.choice(cands)
        off = r.choice(offs)
        if off == 0:
            return "%s[%s]" % (seq.name, iname)
        if off > 0:
            return "%s[%s + %d]" % (seq.name, iname, off)
        return "%s[%s - %d]" % (seq.name, iname, -off)

    def arith(self, a, ex, d=0):
        r = self.r
        k = r.randrange(10)
        if k < 3:
            text = "%s %s %s" % (a, r.choice("+-"), self.lit_int(1))
        elif k < 5:
            text = "%s %s %s" % (a, r.choice(("//", "%")), self.lit_int(2))
        elif k < 6:
            text = "%s * %s" % (a, self.lit_int(2))
        elif k < 7:
            text = "%s ** 2" % a
        elif k < 9:
            b = self.var(INT, ex)
            if b is None or b.name == a:
                text = "%s + %s" % (a, self.lit_int(1))
            else:
                text = "%s %s %s" % (a, r.choice(("+", "-", "*", "+")), b.name)
        else:
            text = "abs(%s)" % a
            return text
        return "(" + text + ")" if d > 0 else text

    def e_int(self, d=0, ex=None):
        r = self.r
        for _ in range(6):
            k = r.randrange(22)
            if k < 5:
                v = self.var(INT, ex)
                if v is None:
                    continue
                if d == 0 and r.random() < 0.45:
                    return self.arith(v.name, ex)
                return v.name
            if k < 7:
                v = self.var_of(SIZED, ex)
                if v is not None:
                    return "len(%s)" % v.name
            elif k == 7:
                v = self.var(LI, ex)
                if v is not None:
                    if r.random() < 0.25:
                        return "sum(%s[:%s])" % (v.name, self.lit_int(1))
                    return "sum(%s)" % v.name
            elif k == 8:
                v = self.var(LI, ex)
                if v is not None:
                    fn = r.choice(("max", "min"))
                    if r.random() < 0.5:
                        return "%s(%s, default=%s)" % (fn, v.name, r.choice(("0", "0", "-1")))
                    return self.cond_expr("%s(%s)" % (fn, v.name), v.name, "0", d)
            elif k == 9:
                v = self.var(STR, ex)
                if v is not None:
                    meth = r.choice(("count", "count", "find", "rfind"))
                    return "%s.%s(%s)" % (v.name, meth, self.lit_sub())
            elif k == 10:
                v = self.var_of((LI, LS), ex)
                if v is not None:
                    e = self.hot_or(ELEM[v.t], ex) or (
                        self.lit_int() if v.t == LI else self.lit_word())
                    return "%s.count(%s)" % (v.name, e)
            elif k == 11:
                v = self.var(DSI, ex)
                if v is not None:
                    return "%s.get(%s, %s)" % (v.name, self.key_expr(), r.choice(("0", "0", "-1", "1")))
            elif k == 12:
                acc = self.idx_access(INT)
                if acc is not None:
                    return acc
                v = self.var(LI, ex)
                if v is not None:
                    pos = r.choice(("0", "-1", "0", "len(%s) // 2" % v.name))
                    return self.cond_expr("%s[%s]" % (v.name, pos), v.name,
                                          r.choice(("0", "-1")), d)
            elif k == 13 and d == 0:
                v = self.var_of((LI, LS, STR, SI, SS), ex)
                if v is not None:
                    et = ELEM[v.t] if v.t != SI else INT
                    name = self.tmp(ELEM_NAMES["char"] if v.t == STR else ELEM_NAMES[et])
                    tv = Var(name, et, hint="char" if v.t == STR else "")
                    cond = self.pred(tv)
                    if v.t in (LI, SI) and r.random() < 0.5:
                        return "sum(%s for %s in %s if %s)" % (name, name, v.name, cond)
                    if r.random() < 0.5:
                        return "sum(1 for %s in %s if %s)" % (name, v.name, cond)
                    return "len([%s for %s in %s if %s])" % (name, name, v.name, cond)
            elif k == 14 and d == 0:
                a = self.e_int(1, ex)
                b = self.e_int(1, ex)
                op = r.choice(("+", "-", "*", "+", "-"))
                return "%s %s %s" % (par(a), op, par(b))
            elif k == 15:
                v = self.var(INT, ex)
                if v is not None:
                    return "abs(%s)" % self.arith(v.name, ex, 0) if d == 0 else "abs(%s)" % v.name
            elif k == 16:
                v = [h for h in self.hot if h.t == STR and h.hint == "char"]
                if v:
                    c = v[-1].name
                    if r.random() < 0.5:
                        return "ord(%s)" % c
                    return "ord(%s) - ord('a')" % c if d == 0 else "(ord(%s) - ord('a'))" % c
            elif k == 17:
                call = self.helper_call(INT, d)
                if call is not None:
                    return call
            elif k == 18:
                v = self.var(STR, ex)
                if v is not None:
                    if r.random() < 0.5:
                        return "len(%s.split())" % v.name
                    return "len(%s)" % v.name
            elif k == 19:
                v = self.var(DSI, ex)
                if v is not None:
                    return "sum(%s.values())" % v.name
            else:
                return self.lit_int()
        return self.lit_int()

    def e_str(self, d=0, ex=None):
        r = self.r
        for _ in range(6):
            k = r.randrange(24)
            if k < 5:
                v = self.var(STR, ex)
                if v is not None:
                    return v.name
            elif k < 8:
                v = self.var(STR, ex)
                if v is not None:
                    m = r.randrange(12)
                    if m < 6:
                        return "%s.%s()" % (v.name, ("upper", "lower", "strip", "title",
                                                      "capitalize", "swapcase")[m])
                    if m < 8:
                        return "%s.replace(%s, %s)" % (v.name, self.lit_sub(), self.lit_str())
                    if m < 9:
                        return "%s.%s(%s)" % (v.name, r.choice(("strip", "lstrip", "rstrip")),
                                              self.lit_char())
                    if m < 10:
                        return "%s.zfill(%s)" % (v.name, self.lit_int(2))
                    if m < 11:
                        return "%s.center(%s, %s)" % (v.name, self.lit_int(2),
                                                       r.choice(("'*'", "'-'", "'.'")))
                    return "%s.ljust(%s, %s)" % (v.name, self.lit_int(2), r.choice(("'.'", "'_'")))
            elif k < 10:
                v = self.var(STR, ex)
                if v is not None:
                    m = r.randrange(7)
                    if m == 0:
                        return "%s[::-1]" % v.name
                    if m == 1:
                        return "%s[:%s]" % (v.name, self.lit_int(1))
                    if m == 2:
                        return "%s[%s:]" % (v.name, self.lit_int(1))
                    if m == 3:
                        return "%s[::2]" % v.name
                    if m == 4:
                        a = int(self.lit_int())
                        return "%s[%d:%d]" % (v.name, a, a + r.randint(1, 4))
                    if m == 5:
                        i = self.var(INT, ex)
                        if i is not None:
                            return "%s[%s:]" % (v.name, i.name)
                    return "%s[1:-1]" % v.name
            elif k < 12:
                v = self.var(LS, ex)
                if v is not None:
                    return "%s.join(%s)" % (r.choice(JOIN_SEPS), v.name)
                v = self.var(STR, ex)
                if v is not None:
                    return "''.join(%s(%s))" % (r.choice(("sorted", "reversed")), v.name)
            elif k == 12:
                v = self.var(LI, ex)
                if v is not None:
                    name = self.tmp(ELEM_NAMES[INT])
                    return "%s.join(str(%s) for %s in %s)" % (
                        r.choice(JOIN_SEPS[:6]), name, name, v.name)
            elif k == 13:
                return "str(%s)" % self.e_int(1, ex)
            elif k == 14:
                a = self.var_of((STR, INT), ex)
                b = self.var_of((STR, INT, LI, LS), ex)
                if a is not None and b is not None:
                    mid = r.choice(("-", ":", " ", "=", ", ", "/", ""))
                    if r.random() < 0.5:
                        return "f'{%s}%s{%s}'" % (a.name, mid, b.name)
                    return "f'%s{%s}%s'" % (r.choice(("<", "[", "item ", "#")), a.name,
                                            r.choice((">", "]", "!", "")))
            elif k == 15 and d == 0:
                a = self.e_str(1, ex)
                b = self.e_str(1, ex) if r.random() < 0.6 else self.lit_str()
                return "%s + %s" % (par(a), par(b))
            elif k == 16:
                acc = self.idx_access(STR)
                if acc is not None:
                    return acc
                v = self.var_of((STR, LS), ex)
                if v is not None:
                    pos = r.choice(("0", "-1"))
                    return self.cond_expr("%s[%s]" % (v.name, pos), v.name, "''", d)
            elif k == 17:
                v = self.var(STR, ex)
                if v is not None:
                    return "%s * %s" % (v.name, r.choice(("2", "2", "3")))
            elif k == 18:
                v = self.var(LS, ex)
                if v is not None:
                    return "%s(%s, key=len, default='')" % (r.choice(("max", "min")), v.name)
            elif k == 19:
                v = self.var(INT, ex)
                if v is not None:
                    return "chr(ord('a') + %s %% 26)" % par(v.name)
            elif k == 20 and d == 0:
                v = self.var(STR, ex)
                if v is not None:
                    c = self.tmp(ELEM_NAMES["char"])
                    cond = self.pred(Var(c, STR, hint="char"))
                    return "''.join(%s for %s in %s if %s)" % (c, c, v.name, cond)
            elif k == 21:
                call = self.helper_call(STR, d)
                if call is not None:
                    return call
            elif k == 22:
                v = self.var(STR, ex)
                if v is not None:
                    if r.random() < 0.5:
                        sep = r.choice(SPLIT_SEPS + [" "])
                        v.hint = v.hint or ("sep" + sep)
                        return "%s.split(%r)[0]" % (v.name, sep)
                    return "%s.%s(%s)[%s]" % (v.name, r.choice(("partition", "rpartition")),
                                               repr(r.choice(SPLIT_SEPS + [" "])),
                                               r.choice(("0", "2")))
            else:
                return self.lit_str()
        return self.lit_str()

    def e_bool(self, d=0, ex=None):
        r = self.r
        for _ in range(6):
            k = r.randrange(18)
            if k < 4:
                a = self.e_int(1, ex)
                if a.lstrip("-").isdigit():
                    continue
                op = r.choice(("<", ">", "==", "!=", ">=", "<=", ">", "<"))
                if r.random() < 0.6:
                    b = self.lit_int()
                else:
                    b = self.e_int(1, ex)
                if a == b:
                    continue
                return "%s %s %s" % (a, op, b)
            if k < 8:
                v = self.var(STR, ex)
                if v is None:
                    continue
                n = v.name
                if v.hint == "char":
                    m = r.randrange(7)
                    if m < 4:
                        return "%s.%s()" % (n, ("isdigit", "isalpha", "isupper", "islower")[m])
                    if m < 6:
                        return "%s %sin %s" % (n, r.choice(("", "not ")), r.choice(CHAR_SETS))
                    return "%s %s %s" % (n, r.choice(("==", "!=")), self.lit_char())
                m = r.randrange(11)
                if m < 2:
                    return "%s.%s(%s)" % (n, r.choice(("startswith", "endswith")), self.lit_sub())
                if m < 4:
                    return "%s.%s()" % (n, r.choice(("isdigit", "isalpha", "isupper", "islower",
                                                     "isalnum", "istitle")))
                if m < 5:
                    return "%s in %s" % (self.lit_sub(), n)
                if m < 6:
                    return "%s == %s" % (n, self.lit_word())
                if m < 7:
                    return "len(%s) %s %s" % (n, r.choice((">", "<", ">=", "==")), self.lit_int(1))
                if m < 8:
                    return "%s == %s[::-1]" % (n, n)
                if m < 9:
                    return "%s%s" % (r.choice(("not ", "")), n)
                if m < 10:
                    o = self.var(STR, n)
                    if o is not None:
                        return "%s %s %s" % (n, r.choice(("<", ">", "==", "!=", "in")), o.name)
                return "%s[:1] %s %s" % (n, r.choice(("==", "!=")), self.lit_char())
            elif k < 10:
                v = self.var_of((LI, SI, LS, SS, DSI), ex)
                if v is not None:
                    et = ELEM[v.t] if v.t != SI else INT
                    e = self.hot_or(et, ex)
                    if e is None:
                        e = self.lit_int() if et == INT else self.lit_word()
                    return "%s %sin %s" % (e, r.choice(("", "", "not ")), v.name)
            elif k == 10:
                v = self.var_of(SIZED, ex)
                if v is not None:
                    m = r.randrange(3)
                    if m == 0:
                        return "len(%s) %s %s" % (v.name, r.choice((">", "<", ">=", "==")),
                                                  self.lit_int(1))
                    if m == 1:
                        return "not %s" % v.name
                    return "len(%s) > 0" % v.name if d == 0 else v.name
            elif k == 11:
                v = self.var(BOOL, ex)
                if v is not None:
                    return v.name if r.random() < 0.7 else "not " + v.name
            elif k == 12 and d == 0:
                a = self.e_bool(1, ex)
                b = self.e_bool(1, ex)
                if a != b:
                    return "%s %s %s" % (par(a), r.choice(("and", "or")), par(b))
            elif k == 13 and d == 0:
                v = self.var_of((LI, LS, STR), ex)
                if v is not None:
                    et = ELEM[v.t]
                    name = self.tmp(ELEM_NAMES["char"] if v.t == STR else ELEM_NAMES[et])
                    cond = self.pred(Var(name, et, hint="char" if v.t == STR else ""))
                    return "%s(%s for %s in %s)" % (r.choice(("all", "any")), cond, name, v.name)
            elif k < 16:
                v = self.var(INT, ex)
                if v is not None:
                    m = self.lit_int(2)
                    return "%s %% %s %s %s" % (v.name, m, r.choice(("==", "!=")),
                                               r.choice(("0", "0", "1")))
            elif k == 16:
                call = self.helper_call(BOOL, d)
                if call is not None:
                    return call
            else:
                v = self.var(DSI, ex)
                if v is not None:
                    if r.random() < 0.5:
                        return "%s in %s" % (self.key_expr(), v.name)
                    return "%s.get(%s, 0) > %s" % (v.name, self.key_expr(), self.lit_int())
        v = self.var(INT, ex)
        if v is not None:
            return "%s > %s" % (v.name, self.lit_int())
        v = self.var_of(SIZED, ex)
        if v is not None:
            return "len(%s) > %s" % (v.name, self.lit_int(1))
        return "True"

    def comp_over(self, src_types, ex):
        """Pick a sequence to comprehend over; returns (text, elem Var) or None."""
        r = self.r
        v = self.var_of(src_types, ex)
        if v is None:
            return None
        if v.t == DSI:
            k = self.tmp(ELEM_NAMES["key"])
            if r.random() < 0.5:
                return v.name, Var(k, STR)
            return "%s.values()" % v.name, Var(self.tmp(ELEM_NAMES[INT]), INT)
        et = ELEM[v.t]
        if v.t == STR:
            if r.random() < 0.3:
                return "%s.split()" % v.name, Var(self.tmp(ELEM_NAMES[STR]), STR)
            return v.name, Var(self.tmp(ELEM_NAMES["char"]), STR, hint="char")
        return v.name, Var(self.tmp(ELEM_NAMES[et]), et)

    def comprehension(self, out_t, ex):
        """[expr for x in seq if cond] producing a list of out_t elements."""
        r = self.r
        src = self.comp_over((LI, LS, STR, DSI, SI), ex)
        if src is None:
            return None
        text, ev = src
        if text[-1] != ")" and ev.t == INT and r.random() < 0.3 and text.isidentifier():
            # enumerate form
            i = self.tmp(ELEM_NAMES["index"])
            iv = Var(i, INT, 10)
            self.hot.append(ev)
            self.hot.append(iv)
            cond = self.pred(ev) if r.random() < 0.7 else self.pred(iv)
            body = i if out_t == INT and r.random() < 0.5 else self.transform(ev, out_t)
            self.hot.pop()
            self.hot.pop()
            return "[%s for %s, %s in enumerate(%s) if %s]" % (body, i, ev.name, text, cond)
        self.hot.append(ev)
        body = self.transform(ev, out_t)
        cond = None
        if r.random() < 0.6 or body == ev.name:
            cond = self.pred(ev) if r.random() < 0.85 else self.e_bool(1, ex)
        self.hot.pop()
        if cond:
            return "[%s for %s in %s if %s]" % (body, ev.name, text, cond)
        return "[%s for %s in %s]" % (body, ev.name, text)

    def e_li(self, d=0, ex=None):
        r = self.r
        for _ in range(6):
            k = r.randrange(16)
            if k < 3:
                v = self.var(LI, ex)
                if v is not None:
                    return v.name
            elif k < 5:
                v = self.var(LI, ex)
                if v is not None:
                    m = r.randrange(7)
                    if m == 0:
                        return "sorted(%s)" % v.name
                    if m == 1:
                        return "sorted(%s, reverse=True)" % v.name
                    if m == 2:
                        return "%s[::-1]" % v.name
                    if m == 3:
                        return "%s[%s:]" % (v.name, self.lit_int(1))
                    if m == 4:
                        return "%s[:%s]" % (v.name, self.lit_int(1))
                    if m == 5:
                        return "%s[::2]" % v.name
                    return "list(reversed(%s))" % v.name
            elif k < 9 and d == 0:
                c = self.comprehension(INT, ex)
                if c is not None:
                    return c
            elif k == 9:
                n, _ = self.small_int()
                if r.random() < 0.5:
                    return "list(range(%s))" % n
                return "list(range(%s, %s))" % (self.lit_int(), n) if r.random() < 0.5 else \
                    "list(range(0, %s, %s))" % (n, r.choice(("2", "3")))
            elif k == 10 and d == 0:
                a = self.var(LI, ex)
                b = self.var(LI, ex)
                if a is not None and b is not None:
                    if a.name == b.name:
                        return "%s + [%s]" % (a.name, self.e_int(1, ex))
                    return "%s + %s" % (a.name, b.name)
            elif k == 11:
                v = self.var(DSI, ex)
                if v is not None:
                    return r.choice(("list(%s.values())", "sorted(%s.values())")) % v.name
            elif k == 12:
                v = self.var(SI, ex)
                if v is not None:
                    return "sorted(%s)" % v.name
                v = self.var(LI, ex)
                if v is not None:
                    return "sorted(set(%s))" % v.name
            elif k == 13:
                v = self.var(STR, ex)
                if v is not None:
                    c = self.tmp(ELEM_NAMES["char"])
                    if r.random() < 0.5:
                        return "[int(%s) for %s in %s if %s.isdigit()]" % (c, c, v.name, c)
                    return "[ord(%s) for %s in %s]" % (c, c, v.name)
            elif k == 14:
                v = self.var(LS, ex)
                if v is not None:
                    w = self.tmp(ELEM_NAMES[STR])
                    return "[len(%s) for %s in %s]" % (w, w, v.name)
            elif k == 15:
                a = self.var(LI, ex)
                b = self.var(LI, ex)
                if a is not None and b is not None and a.name != b.name:
                    x, y = self.tmp(["a", "x", "p"]), self.tmp(["b", "y", "q"])
                    if x == y:
                        continue
                    return "[%s %s %s for %s, %s in zip(%s, %s)]" % (
                        x, r.choice("+-*"), y, x, y, a.name, b.name)
        v = self.var(LI, ex)
        if v is not None:
            return "sorted(%s)" % v.name
        return "[]" if r.random() < 0.5 else "[%s, %s]" % (self.lit_int(), self.lit_int())

    def e_ls(self, d=0, ex=None):
        r = self.r
        for _ in range(6):
            k = r.randrange(14)
            if k < 3:
                v = self.var(LS, ex)
                if v is not None:
                    return v.name
            elif k < 6:
                v = self.var(STR, ex)
                if v is not None and v.hint != "char":
                    m = r.randrange(4)
                    if m < 2:
                        return "%s.split()" % v.name
                    if m == 2:
                        sep = v.hint[3:] if v.hint.startswith("sep") else r.choice(SPLIT_SEPS)
                        v.hint = "sep" + sep
                        return "%s.split(%r)" % (v.name, sep)
                    return "list(%s)" % v.name
            elif k < 8:
                v = self.var(LS, ex)
                if v is not None:
                    m = r.randrange(6)
                    if m == 0:
                        return "sorted(%s)" % v.name
                    if m == 1:
                        return "sorted(%s, key=len)" % v.name
                    if m == 2:
                        return "%s[::-1]" % v.name
                    if m == 3:
                        return "%s[%s:]" % (v.name, self.lit_int(1))
                    if m == 4:
                        return "sorted(%s, key=lambda %s: (-len(%s), %s))" % ((v.name,) + (
                            self.tmp(["w", "s", "x"]),) * 3)
                    return "%s[:%s]" % (v.name, self.lit_int(1))
            elif k < 11 and d == 0:
                c = self.comprehension(STR, ex)
                if c is not None:
                    return c
            elif k == 11:
                v = self.var(DSI, ex)
                if v is not None:
                    m = r.randrange(4)
                    if m == 0:
                        return "list(%s)" % v.name
                    if m == 1:
                        return "sorted(%s)" % v.name
                    if m == 2:
                        return "sorted(%s, key=%s.get)" % (v.name, v.name)
                    return "list(%s.keys())" % v.name
            elif k == 12:
                v = self.var(SS, ex)
                if v is not None:
                    return "sorted(%s)" % v.name
            else:
                v = self.var(LI, ex)
                if v is not None:
                    x = self.tmp(ELEM_NAMES[INT])
                    return "[str(%s) for %s in %s]" % (x, x, v.name)
        v = self.var(STR, ex)
        if v is not None:
            return "%s.split()" % v.name
        return "[]" if r.random() < 0.5 else "[%s, %s]" % (self.lit_word(), self.lit_word())

    def e_dsi(self, d=0, ex=None):
        r = self.r
        for _ in range(6):
            k = r.randrange(9)
            if k < 2:
                v = self.var(DSI, ex)
                if v is not None:
                    return v.name
            elif k < 4:
                v = self.var_of((LS, STR), ex)
                if v is not None:
                    if v.t == STR:
                        c = self.tmp(ELEM_NAMES["char"])
                        if r.random() < 0.5:
                            return "{%s: %s.count(%s) for %s in %s}" % (c, v.name, c, c, v.name)
                        w = self.tmp(ELEM_NAMES[STR])
                        return "{%s: len(%s) for %s in %s.split()}" % (w, w, w, v.name)
                    w = self.tmp(ELEM_NAMES[STR])
                    val = self.transform(Var(w, STR), INT)
                    return "{%s: %s for %s in %s}" % (w, val, w, v.name)
            elif k == 4:
                a = self.var(LS, ex)
                b = self.var(LI, ex)
                if a is not None and b is not None:
                    return "dict(zip(%s, %s))" % (a.name, b.name)
            elif k == 5:
                v = self.var(DSI, ex)
                if v is not None:
                    kk, vv = self.tmp(["k", "key", "name"]), self.tmp(["v", "val", "n", "count"])
                    if r.random() < 0.5:
                        cond = self.pred(Var(vv, INT) if r.random() < 0.7 else Var(kk, STR))
                        return "{%s: %s for %s, %s in %s.items() if %s}" % (
                            kk, vv, kk, vv, v.name, cond)
                    val = self.transform(Var(vv, INT), INT)
                    return "{%s: %s for %s, %s in %s.items()}" % (kk, val, kk, vv, v.name)
            elif k == 6:
                v = self.var(LS, ex)
                if v is not None:
                    return "dict.fromkeys(%s, %s)" % (v.name, self.lit_int())
            elif k == 7:
                v = self.var(LI, ex)
                if v is not None:
                    x = self.tmp(ELEM_NAMES[INT])
                    return "{str(%s): %s for %s in %s}" % (x, self.arith(x, ex, 0), x, v.name)
            else:
                v = self.var(DSI, ex)
                if v is not None:
                    return "dict(%s)" % v.name
        return "{}" if r.random() < 0.6 else "{%s: %s}" % (self.lit_word(), self.lit_int())

    def e_si(self, d=0, ex=None):
        r = self.r
        for _ in range(5):
            k = r.randrange(6)
            if k == 0:
                v = self.var(SI, ex)
                if v is not None:
                    return v.name
            elif k == 1:
                v = self.var(LI, ex)
                if v is not None:
                    return "set(%s)" % v.name
            elif k == 2:
                a = self.var(LI, ex)
                b = self.var_of((LI, SI), ex)
                if a is not None and b is not None and a.name != b.name:
                    return "set(%s) %s set(%s)" % (a.name, r.choice("&|-^"), b.name)
            elif k == 3:
                v = self.var(LI, ex)
                if v is not None:
                    x = self.tmp(ELEM_NAMES[INT])
                    return "{%s %% %s for %s in %s}" % (x, self.lit_int(2), x, v.name)
            elif k == 4:
                v = self.var(DSI, ex)
                if v is not None:
                    return "set(%s.values())" % v.name
            else:
                v = self.var(SI, ex)
                if v is not None:
                    return "%s | {%s}" % (v.name, self.e_int(1, ex))
        return "set()"

    def e_ss(self, d=0, ex=None):
        r = self.r
        for _ in range(5):
            k = r.randrange(6)
            if k == 0:
                v = self.var(SS, ex)
                if v is not None:
                    return v.name
            elif k == 1:
                v = self.var_of((STR, LS), ex)
                if v is not None:
                    return "set(%s)" % v.name
            elif k == 2:
                v = self.var(STR, ex)
                if v is not None:
                    return "set(%s) - set(%s)" % (v.name, r.choice(CHAR_SETS))
            elif k == 3:
                v = self.var(LS, ex)
                if v is not None:
                    w = self.tmp(ELEM_NAMES[STR])
                    return "{%s.%s() for %s in %s}" % (w, r.choice(("lower", "upper", "strip")),
                                                       w, v.name)
            elif k == 4:
                v = self.var(DSI, ex)
                if v is not None:
                    return "set(%s)" % v.name
            else:
                a = self.var_of((STR, LS), ex)
                b = self.var_of((STR, LS, SS), ex)
                if a is not None and b is not None and a.name != b.name:
                    return "set(%s) %s set(%s)" % (a.name, r.choice("&|-"), b.name)
        return "set()"

    def e_lp(self, d=0, ex=None):
        r = self.r
        for _ in range(5):
            k = r.randrange(5)
            if k == 0:
                v = self.var(LP, ex)
                if v is not None:
                    return v.name
            elif k < 3:
                v = self.var(DSI, ex)
                if v is not None:
                    p = self.tmp(["kv", "p", "item", "pair"])
                    key = r.choice(("%s[1]" % p, "-%s[1]" % p, "(-%s[1], %s[0])" % (p, p),
                                    "(%s[1], %s[0])" % (p, p), "len(%s[0])" % p))
                    rev = r.choice(("", "", ", reverse=True"))
                    if r.random() < 0.3:
                        return "sorted(%s.items())" % v.name
                    return "sorted(%s.items(), key=lambda %s: %s%s)" % (v.name, p, key, rev)
            elif k == 3:
                a = self.var(LS, ex)
                b = self.var(LI, ex)
                if a is not None and b is not None:
                    return "list(zip(%s, %s))" % (a.name, b.name)
            else:
                v = self.var(LS, ex)
                if v is not None:
                    w = self.tmp(ELEM_NAMES[STR])
                    return "[(%s, len(%s)) for %s in %s]" % (w, w, w, v.name)
        return "[]"

    # -- statements ---------------------------------------------------------

    def pick_type(self, weights):
        r = self.r
        total = 0
        for _, w in weights:
            total += w
        x = r.random() * total
        for t, w in weights:
            x -= w
            if x < 0:
                return t
        return weights[-1][0]

    def s_assign(self, t):
        want = [v.name for v in self.params if v.name in self.unused]
        for attempt in range(4):
            e = self.expr(t, 0)
            if want and attempt < 3 and not any(w in e for w in want):
                continue
            if is_ident(e) and t in MUTABLE and attempt < 3:
                continue
            if is_ident(e):
                v = [x for x in self.env if x.name == e]
                if t in MUTABLE:
                    e = COPY[t] % e
                elif t == BOOL:
                    e = "not " + e
                elif v and t in (INT, STR):
                    e = self.transform(v[0], t)
            if attempt < 3 and not self.mentions(e):
                continue
            break
        name = self.fresh(ACC_NAMES[t] if self.r.random() < 0.3 else
                          (TEMP_NAMES.get(t) or VAR_NAMES[t]) if self.r.random() < 0.4 else
                          VAR_NAMES[t])
        self.emit("%s = %s" % (name, e))
        size = 0
        if t == INT:
            size = None
            if e.startswith("len("):
                src = [v for v in self.env if v.name == e[4:-1]]
                size = src[0].size if src else None
        elif t in SIZED:
            # as long as what it is made from (longer when repeated or joined)
            size = DEFAULT_SIZE[t]
            for v in self.env:
                if v.t in SIZED and v.name in e:
                    size = max(size, v.size * (3 if "*" in e or "join" in e or "+" in e
                                               else 1))
            size = min(size, 1000)
        v = self.add(name, t, size)
        if t == INT and size is None:
            v.size = None
        return v

    def mutable_target(self, t=None):
        """A variable an update statement may change (never a frozen one)."""
        r = self.r
        accs = [v for v in self.accs if v.name not in self.frozen and (t is None or v.t == t)
                and v in self.env]
        if accs and r.random() < 0.85:
            return accs[-1] if r.random() < 0.5 else r.choice(accs)
        cands = [v for v in self.env if v.name not in self.frozen and v.t != BOOL
                 and (t is None or v.t == t) and not v.name.startswith("self.")
                 and v not in self.hot]
        if not cands:
            return None
        local = [v for v in cands if not v.param]
        if local and r.random() < 0.75:
            return r.choice(local)
        return r.choice(cands)

    def s_update(self, v=None):
        r = self.r
        if v is None:
            v = self.mutable_target()
            if v is None:
                return False
        v.touched = True
        self.unused.discard(v.name)
        t = v.t
        if self.loop_depth and t in SIZED:
            v.size = min(v.size + self.mult * (4 if t == STR else 2), 1000)
        if t == INT:
            v.size = None  # no longer known to be small
        n = v.name
        in_loop = self.loop_depth > 0
        if t == INT:
            k = r.randrange(10)
            if k < 4:
                self.emit("%s %s= %s" % (n, r.choice("++-"), self.small_update_int(n)))
            elif k < 5:
                self.emit("%s += 1" % n)
            elif k < 7:
                self.emit("%s = %s(%s, %s)" % (n, r.choice(("max", "min")), n,
                                               self.small_update_int(n)))
            elif k < 8 and (not in_loop or self.mult <= 10):
                e = self.hot_or(INT, n) if in_loop else None
                self.emit("%s *= %s" % (n, e or self.lit_int(2)))
            elif k < 9 and not in_loop:
                self.emit("%s %s= %s" % (n, r.choice(("//", "%")), self.lit_int(2)))
            else:
                self.emit("%s -= %s" % (n, self.small_update_int(n)))
        elif t == STR:
            k = r.randrange(8)
            if k < 4:
                self.emit("%s += %s" % (n, self.small_update_str(n)))
            elif k < 5:
                self.emit("%s = %s + %s" % (n, par(self.small_update_str(n)), n))
            elif k < 6 and not in_loop:
                self.emit("%s = %s.replace(%s, %s)" % (n, n, self.lit_sub(), self.lit_str()))
            elif k < 7 and not in_loop:
                self.emit("%s = %s.%s()" % (n, n, r.choice(("strip", "upper", "lower", "title"))))
            else:
                self.emit("%s += %s" % (n, self.small_update_str(n)))
        elif t in (LI, LS):
            et = ELEM[t]
            k = r.randrange(14)
            if k < 6:
                self.emit("%s.append(%s)" % (n, self.elem_expr(et, n)))
            elif k < 7:
                self.emit("%s.insert(0, %s)" % (n, self.elem_expr(et, n)))
            elif k < 8:
                if in_loop:
                    self.emit("%s.extend([%s, %s])" % (n, self.elem_expr(et, n),
                                                       self.elem_expr(et, n)))
                else:
                    src = self.var(t, n)
                    if src is not None:
                        self.emit("%s.extend(%s)" % (n, src.name))
                    else:
                        self.emit("%s.append(%s)" % (n, self.elem_expr(et, n)))
            elif k < 9:
                mark = self.open("if %s:" % n)
                self.emit("%s.pop(%s)" % (n, r.choice(("", "", "0"))))
                self.close(mark)
            elif k < 10:
                e = self.elem_expr(et, n)
                mark = self.open("if %s in %s:" % (e, n))
                self.emit("%s.remove(%s)" % (n, e))
                self.close(mark)
            elif k < 11 and not in_loop:
                if r.random() < 0.5:
                    self.emit("%s.sort(%s)" % (n, r.choice(("", "reverse=True", "key=abs" if t == LI
                                                             else "key=len"))))
                else:
                    self.emit("%s.reverse()" % n)
            elif k < 12:
                mark = self.open("if %s:" % n)
                self.emit("%s[%s] = %s" % (n, r.choice(("0", "-1")), self.elem_expr(et, n)))
                self.close(mark)
            else:
                self.emit("%s.append(%s)" % (n, self.elem_expr(et, n)))
        elif t == DSI:
            key = self.key_expr()
            k = r.randrange(10)
            if k < 4:
                self.emit("%s[%s] = %s.get(%s, 0) + %s" % (n, key, n, key, r.choice(
                    ("1", "1", self.small_update_int(n)))))
            elif k < 5:
                self.emit("%s[%s] = %s" % (n, key, self.small_update_int(n)))
            elif k < 6:
                mark = self.open("if %s in %s:" % (key, n))
                self.emit("%s[%s] += %s" % (n, key, r.choice(("1", self.small_update_int(n)))))
                self.close(mark)
                mark = self.open("else:")
                self.emit("%s[%s] = %s" % (n, key, r.choice(("1", "0", self.small_update_int(n)))))
                self.close(mark)
            elif k < 7:
                self.emit("%s.setdefault(%s, %s)" % (n, key, r.choice(("0", "1", self.lit_int()))))
            elif k < 8:
                self.emit("%s.pop(%s, None)" % (n, key))
            elif k < 9:
                self.emit("%s.update({%s: %s})" % (n, key, self.small_update_int(n)))
            else:
                mark = self.open("if %s in %s:" % (key, n))
                self.emit("del %s[%s]" % (n, key))
                self.close(mark)
        elif t in (SI, SS):
            et = INT if t == SI else STR
            k = r.randrange(6)
            if k < 4:
                self.emit("%s.add(%s)" % (n, self.elem_expr(et, n)))
            elif k < 5:
                self.emit("%s.discard(%s)" % (n, self.elem_expr(et, n)))
            else:
                src = self.var(LI if t == SI else LS, n)
                if src is not None and not in_loop:
                    self.emit("%s.update(%s)" % (n, src.name))
                else:
                    self.emit("%s.add(%s)" % (n, self.elem_expr(et, n)))
        elif t == LP:
            self.emit("%s.append((%s, %s))" % (n, self.elem_expr(STR, n), self.elem_expr(INT, n)))
        elif t == BOOL:
            self.emit("%s = %s" % (n, r.choice(("True", "False", "not %s" % n))))
        else:
            return False
        return True

    def small_update_int(self, ex):
        r = self.r
        h = self.var(INT, ex) if self.hot else None
        if h is not None and r.random() < 0.6:
            return h.name if r.random() < 0.6 else self.transform(h, INT)
        hs = [v for v in self.hot if v.t == STR]
        if hs and r.random() < 0.5:
            return self.transform(r.choice(hs), INT)
        return self.vexpr(INT, 1, ex)

    def small_update_str(self, ex):
        """A string to add to an accumulator: inside loops only element
        variables, literals and numbers (never something derived from an
        accumulator, which could double it on every iteration)."""
        r = self.r
        if self.loop_depth:
            hs = [v for v in self.hot if v.t == STR and v.name != ex]
            h = hs[-1].name if hs else None
        else:
            h = self.hot_or(STR, ex)
        if self.loop_depth and h is None:
            hi = self.hot_or(INT, ex)
            if hi is not None and r.random() < 0.5:
                return "str(%s)" % hi
            return self.lit_str()
        if h is not None and (self.loop_depth or r.random() < 0.6):
            m = r.randrange(4)
            if m == 0:
                return "%s.upper()" % h
            if m == 1:
                return "%s + %s" % (h, r.choice(JOIN_SEPS))
            return h
        if r.random() < 0.3:
            hi = self.hot_or(INT, ex)
            if hi is not None:
                return "str(%s)" % hi
        return self.e_str(1, ex)

    def elem_expr(self, t, ex):
        r = self.r
        if self.loop_depth and r.random() < 0.9:
            hs = [v for v in self.hot if v.name != ex]
            same = [v for v in hs if v.t == t]
            if same and r.random() < 0.75:
                v = same[-1] if r.random() < 0.6 else r.choice(same)
                return v.name if r.random() < 0.6 else self.transform(v, t)
            if hs:
                return self.transform(r.choice(hs), t)
        h = self.var(t, ex)
        if h is not None and r.random() < 0.8:
            return h.name if r.random() < 0.6 else self.transform(h, t)
        hs = [v for v in self.hot if v.name != ex]
        if hs and r.random() < 0.7:
            return self.transform(r.choice(hs), t)
        return self.expr(t, 1, ex)

    def s_if(self, body_kind=None, allow_else=True):
        r = self.r
        if self.nest >= 3 or self.lines_left() < 2:
            return self.s_update() if self.loop_depth else False
        mark = self.open("if %s:" % self.cond())
        self.body(r.randint(1, 2), body_kind)
        self.close(mark)
        if allow_else and r.random() < 0.25 and self.lines_left() >= 2:
            mark = self.open("elif %s:" % self.cond())
            self.body(1, body_kind)
            self.close(mark)
        if allow_else and r.random() < 0.35 and self.lines_left() >= 2:
            mark = self.open("else:")
            self.body(1, body_kind)
            self.close(mark)
        return True

    def s_if_assign(self, t=None):
        """A variable set in every branch of an if/elif/else (it exists afterwards)."""
        r = self.r
        if self.nest >= 3 or self.lines_left() < 4:
            return False
        if t is None:
            t = r.choice((STR, STR, INT, INT, BOOL, LI))
        name = self.fresh(ACC_NAMES[t] if r.random() < 0.5 else VAR_NAMES[t])
        def value():
            if t == STR and r.random() < 0.6:
                return r.choice(("'small'", "'big'", "'empty'", "'mixed'", "'odd'", "'even'",
                                 "'low'", "'high'", "'none'", "'short'", "'long'", "'neg'",
                                 "'zero'", "'pos'", "'yes'", "'no'", "'other'"))
            e = self.vexpr(t, 1)
            return COPY[t] % e if t in MUTABLE and is_ident(e) else e

        mark = self.open("if %s:" % self.cond())
        if r.random() < 0.25 and self.nest < 3 and self.lines_left() >= 6:
            m2 = self.open("if %s:" % self.cond())
            self.emit("%s = %s" % (name, value()))
            self.close(m2)
            m2 = self.open("else:")
            self.emit("%s = %s" % (name, value()))
            self.close(m2)
        else:
            self.emit("%s = %s" % (name, value()))
        self.close(mark)
        for _ in range(r.choice((0, 1, 1, 2))):
            mark = self.open("elif %s:" % self.cond())
            self.emit("%s = %s" % (name, value()))
            self.close(mark)
        mark = self.open("else:")
        self.emit("%s = %s" % (name, value()))
        self.close(mark)
        return self.add(name, t, None if t == INT else 0)

    def body(self, n, kind=None):
        r = self.r
        for _ in range(n):
            if self.lines_left() <= 0:
                break
            if self.loop_depth:
                self.loop_stmt(kind)
                continue
            x = r.random()
            if x < 0.55:
                if not self.s_update():
                    self.stmt()
            elif x < 0.62 and self.ret_t is not None:
                self.emit("return %s" % self.ret_expr_of(self.ret_t, 1))
                break
            else:
                self.stmt()

    # -- loops ----------------------------------------------------------------

    def new_accs(self, elem_types, n):
        r = self.r
        made = []
        for _ in range(n):
            if STR in elem_types:
                t = r.choice((INT, INT, STR, LS, DSI, SS, LI, BOOL))
            elif INT in elem_types:
                t = r.choice((INT, INT, INT, LI, LI, SI, DSI, BOOL))
            else:
                t = r.choice((INT, LI, LS))
            if t == DSI and STR not in elem_types and INT in elem_types:
                t = LI
            name = self.fresh(ACC_NAMES[t])
            if t == INT:
                init = r.choice(("0", "0", "0", "1", "-1"))
                if init == "1" and "product" not in name:
                    init = "0"
            elif t == BOOL:
                init = r.choice(("False", "True"))
            else:
                init = EMPTY[t]
            self.emit("%s = %s" % (name, init))
            v = self.add(name, t, 1 if t in SIZED else None)
            if t == INT:
                v.size = None
            made.append(v)
        return made

    def loop_source(self):
        """Choose what a for loop iterates: (header, elem vars, cost, frozen, idx)."""
        r = self.r
        room = LOOP_LIMIT // self.mult
        for _ in range(6):
            k = r.randrange(12)
            if k < 3:
                v = self.var_of((LI, LS))
                if v is None or v.size > room:
                    continue
                et = ELEM[v.t]
                ev = Var(self.fresh(ELEM_NAMES[et]), et, 30 if v.param and et == INT else 0)
                if et == INT and not v.param:
                    ev.size = None
                wrap = r.random()
                if wrap < 0.7:
                    src = v.name
                elif wrap < 0.8:
                    src = "sorted(%s)" % v.name
                elif wrap < 0.9:
                    src = "%s[1:]" % v.name
                else:
                    src = "reversed(%s)" % v.name
                return "for %s in %s:" % (ev.name, src), [ev], v.size, v.name, None
            if k < 5:
                v = self.var(STR)
                if v is None or v.hint == "char":
                    continue
                if r.random() < 0.35 and 8 <= room:
                    ev = Var(self.fresh(ELEM_NAMES[STR]), STR, hint="word")
                    sep = ""
                    if v.hint.startswith("sep") and r.random() < 0.7:
                        sep = repr(v.hint[3:])
                    return "for %s in %s.split(%s):" % (ev.name, v.name, sep), [ev], 8, None, None
                if v.size > room:
                    continue
                ev = Var(self.fresh(ELEM_NAMES["char"]), STR, hint="char")
                src = v.name if r.random() < 0.8 else "%s.lower()" % v.name
                return "for %s in %s:" % (ev.name, src), [ev], v.size, None, None
            if k == 5:
                v = self.var(DSI)
                if v is None or v.size > room:
                    continue
                m = r.randrange(4)
                kv = Var(self.fresh(ELEM_NAMES["key"]), STR)
                if m < 2:
                    vv = Var(self.fresh(["v", "val", "count", "n", "amount", "qty"]), INT)
                    vv.size = None
                    return ("for %s, %s in %s.items():" % (kv.name, vv.name, v.name), [kv, vv],
                            v.size, v.name, None)
                if m == 2:
                    return "for %s in sorted(%s):" % (kv.name, v.name), [kv], v.size, v.name, None
                return "for %s in %s:" % (kv.name, v.name), [kv], v.size, v.name, None
            if k == 6:
                n, size = self.small_int()
                if size > room:
                    continue
                iv = Var(self.fresh(ELEM_NAMES["index"]), INT, size)
                if r.random() < 0.3:
                    return "for %s in range(1, %s):" % (iv.name, n), [iv], size, None, None
                return "for %s in range(%s):" % (iv.name, n), [iv], size, None, None
            if k < 9:
                v = self.var_of((LI, LS, STR))
                if v is None or v.size > room or v.hint == "char":
                    continue
                iv = Var(self.fresh(ELEM_NAMES["index"]), INT, v.size)
                if k == 7:
                    et = ELEM[v.t]
                    ev = Var(self.fresh(ELEM_NAMES["char"] if v.t == STR else ELEM_NAMES[et]),
                             et, hint="char" if v.t == STR else "")
                    if et == INT:
                        ev.size = 30 if v.param else None
                    return ("for %s, %s in enumerate(%s):" % (iv.name, ev.name, v.name),
                            [iv, ev], v.size, v.name, None)
                m = r.randrange(3)
                if m == 0:
                    return ("for %s in range(len(%s)):" % (iv.name, v.name), [iv], v.size,
                            v.name, (iv.name, v, [0]))
                if m == 1:
                    return ("for %s in range(1, len(%s)):" % (iv.name, v.name), [iv], v.size,
                            v.name, (iv.name, v, [0, -1]))
                return ("for %s in range(len(%s) - 1):" % (iv.name, v.name), [iv], v.size,
                        v.name, (iv.name, v, [0, 1]))
            if k == 9:
                a = self.var_of((LI, LS, STR))
                b = self.var_of((LI, LS, STR))
                if a is None or b is None or a.name == b.name:
                    continue
                if min(a.size, b.size) > room or "char" in (a.hint, b.hint):
                    continue
                ea = Var(self.fresh(["a", "x", "p", "left"]), ELEM[a.t],
                         hint="char" if a.t == STR else "")
                eb = Var(self.fresh(["b", "y", "q", "right"]), ELEM[b.t],
                         hint="char" if b.t == STR else "")
                if ea.t == INT:
                    ea.size = None
                if eb.t == INT:
                    eb.size = None
                return ("for %s, %s in zip(%s, %s):" % (ea.name, eb.name, a.name, b.name),
                        [ea, eb], min(a.size, b.size), a.name, None)
            if k == 10:
                v = self.var(LP)
                if v is None or v.size > room:
                    continue
                a = Var(self.fresh(["name", "word", "key", "label"]), STR)
                b = Var(self.fresh(["n", "count", "score", "num"]), INT)
                b.size = None
                return "for %s, %s in %s:" % (a.name, b.name, v.name), [a, b], v.size, v.name, None
            v = self.var_of((SI, SS))
            if v is None or v.size > room:
                continue
            et = INT if v.t == SI else STR
            ev = Var(self.fresh(ELEM_NAMES[et]), et)
            if et == INT:
                ev.size = None
            return "for %s in sorted(%s):" % (ev.name, v.name), [ev], v.size, v.name, None
        return None

    def s_for(self, search=False):
        r = self.r
        if self.loop_depth >= 2 or self.lines_left() < 3:
            return False
        src = self.loop_source()
        if src is None:
            return False
        header, evars, cost, frozen, idx = src
        accs = []
        if not search and self.loop_depth == 0:
            elem_types = [v.t for v in evars]
            n = r.choice((0, 1, 1, 1, 2)) if self.accs_available() else r.choice((1, 1, 2))
            accs = self.new_accs(elem_types, n)
            for a in accs:
                if a.t in SIZED:
                    a.size = max(a.size, 2 * cost)
        env_mark = len(self.env)
        mark = self.open(header)
        for v in evars:
            self.env.append(v)
            self.hot.append(v)
        if frozen:
            self.frozen.append(frozen)
        if idx:
            self.idx.append(idx)
        self.accs.extend(accs)
        self.loop_depth += 1
        old_mult = self.mult
        self.mult *= max(cost, 1)
        if search:
            self.search_body()
        else:
            n = r.choice((1, 1, 2, 2, 3))
            for i in range(n):
                if self.lines_left() <= 0:
                    break
                self.loop_stmt(first=(i == 0 and n > 1))
        self.finish_accs(accs)
        self.mult = old_mult
        self.loop_depth -= 1
        del self.accs[len(self.accs) - len(accs):]
        if frozen:
            self.frozen.pop()
        del self.hot[len(self.hot) - len(evars):]
        self.close(mark)
        del self.env[env_mark:]
        return True

    def accs_available(self):
        return any(not v.param and v.t != BOOL for v in self.env)

    def search_body(self):
        r = self.r
        mark = self.open("if %s:" % self.cond())
        if r.random() < 0.3 and self.lines_left() > 2:
            self.loop_stmt_simple()
        self.emit("return %s" % self.ret_expr_of(self.ret_t, 1))
        self.close(mark)

    def loop_stmt(self, kind=None, first=False):
        r = self.r
        x = r.random()
        if first and x < 0.12 and not self.in_while:
            mark = self.open("if %s:" % self.cond())
            self.emit(r.choice(("continue", "continue", "break")))
            self.close(mark)
            return
        if x < 0.4:
            if not self.s_update():
                self.s_assign_temp()
        elif x < 0.72:
            if self.nest >= 3 or self.lines_left() < 2:
                self.s_update()
                return
            mark = self.open("if %s:" % self.cond())
            if r.random() < 0.15 and not self.in_while:
                self.s_update()
                self.emit("break")
            else:
                self.loop_stmt_simple()
                if r.random() < 0.2 and self.lines_left() > 0:
                    self.loop_stmt_simple()
            self.close(mark)
            y = r.random()
            if y < 0.2 and self.lines_left() >= 2:
                mark = self.open("elif %s:" % self.cond())
                self.loop_stmt_simple()
                self.close(mark)
            if y < 0.5 and self.lines_left() >= 2:
                mark = self.open("else:")
                self.loop_stmt_simple()
                self.close(mark)
        elif x < 0.8:
            v = self.s_assign_temp()
            if v is not None and self.lines_left() > 0:
                # a temporary made only from loop elements may feed an
                # accumulator; one made from other variables (perhaps the
                # accumulator itself) could make it grow exponentially
                text = self.lines[-1].split(" = ", 1)[1]
                safe = all(u in self.hot for u in self.env if u.name in text and u is not v)
                if safe:
                    self.hot.append(v)
                self.loop_stmt_simple()
                if safe:
                    self.hot.pop()
        elif x < 0.87:
            if not (self.loop_depth < 2 and self.s_for()):
                self.s_update()
        elif x < 0.93:
            if not self.s_try(in_loop=True):
                self.s_update()
        elif x < 0.96 and self.ret_t is not None and self.loop_depth == 1:
            mark = self.open("if %s:" % self.cond())
            self.emit("return %s" % self.ret_expr_of(self.ret_t, 1))
            self.close(mark)
        else:
            if not self.s_unpack():
                self.s_update()

    def loop_stmt_simple(self):
        if not self.s_update():
            self.s_assign_temp()

    def s_assign_temp(self):
        r = self.r
        t = r.choice((INT, INT, STR, BOOL))
        hot = [v for v in self.hot if v.t == STR]
        if hot and r.random() < 0.5:
            t = STR
        name = self.fresh(TEMP_NAMES[t])
        e = self.expr(t, 0)
        self.emit("%s = %s" % (name, e))
        v = self.add(name, t, 0)
        if t == INT:
            v.size = None
        return v

    def s_while(self):
        r = self.r
        if self.loop_depth >= 1 or self.lines_left() < 4:
            return False
        k = r.randrange(10)
        room = LOOP_LIMIT // self.mult
        if k == 0 or k == 1:
            seq = self.var_of((LI, LS, STR))
            if seq is None or seq.size > room:
                return False
            i = self.fresh(ELEM_NAMES["index"])
            accs = self.new_accs([ELEM[seq.t]], r.choice((1, 1, 2)))
            self.emit("%s = 0" % i)
            iv = self.add(i, INT, seq.size)
            step = r.choice(("1", "1", "1", "2"))
            self.frozen.extend((i, seq.name))
            ev = None
            if r.random() < 0.7:
                ev = Var(self.fresh(ELEM_NAMES["char"] if seq.t == STR else ELEM_NAMES[ELEM[seq.t]]),
                         ELEM[seq.t], hint="char" if seq.t == STR else "")
                if ev.t == INT:
                    ev.size = 30 if seq.param else None
            body_mark = self.enter_loop("while %s < len(%s):" % (i, seq.name), seq.size, accs,
                                        idx=(i, seq, [0]), hot=[iv] + ([ev] if ev else []))
            if ev is not None:
                self.emit("%s = %s[%s]" % (ev.name, seq.name, i))
                self.env.append(ev)
            for _ in range(r.choice((1, 2))):
                self.loop_stmt()
            self.emit("%s += %s" % (i, step))
            self.leave_loop(body_mark, accs, 1)
            del self.frozen[-2:]
            return True
        if k == 2:
            seq = self.var_of((LI, STR))
            if seq is None or seq.hint == "char":
                return False
            i = self.fresh(ELEM_NAMES["index"])
            self.emit("%s = 0" % i)
            if seq.t == STR:
                cond = r.choice(("%s[%s] == %s" % (seq.name, i, self.lit_char()),
                                 "%s[%s].%s()" % (seq.name, i, r.choice(("isdigit", "isalpha",
                                                                          "isspace", "islower"))),
                                 "%s[%s] in %s" % (seq.name, i, r.choice(CHAR_SETS))))
            else:
                cond = "%s[%s] %s %s" % (seq.name, i, r.choice(("<", ">", "!=", "<=")),
                                         self.vexpr(INT))
            mark = self.open("while %s < len(%s) and %s:" % (i, seq.name, cond))
            self.emit("%s += 1" % i)
            self.close(mark)
            self.add(i, INT, seq.size)
            if r.random() < 0.6:
                rest = self.fresh(["rest", "tail", "remaining", "head"])
                if r.random() < 0.6:
                    self.emit("%s = %s[%s:]" % (rest, seq.name, i))
                else:
                    self.emit("%s = %s[:%s]" % (rest, seq.name, i))
                self.add(rest, seq.t, seq.size)
            return True
        if k == 3 or k == 4:
            src = self.vexpr(INT)
            m = self.fresh(["m", "rest", "num", "n2", "val", "remaining"])
            base = r.choice(("10", "10", "2"))
            self.emit("%s = abs(%s)" % (m, src))
            accs = self.new_accs([INT], r.choice((1, 1, 2)))
            digit = Var(self.fresh(["digit", "d", "last", "bit", "low"]), INT, 9)
            self.frozen.append(m)
            mark = self.enter_loop("while %s > 0:" % m, 20, accs, hot=[digit])
            self.emit("%s = %s %% %s" % (digit.name, m, base))
            self.env.append(digit)
            if accs and accs[0].t == INT and r.random() < 0.35:
                self.emit("%s = %s * %s + %s" % (accs[0].name, accs[0].name, base, digit.name))
            else:
                for _ in range(r.choice((1, 1, 2))):
                    self.loop_stmt()
            self.emit("%s //= %s" % (m, base))
            self.leave_loop(mark, accs, 1)
            self.frozen.pop()
            self.add(m, INT)
            self.env[-1].size = None
            return True
        if k == 5:
            m = self.fresh(["m", "cur", "num", "val"])
            steps = self.fresh(["steps", "count", "moves", "rounds"])
            self.emit("%s = %s" % (m, self.vexpr(INT)))
            self.emit("%s = 0" % steps)
            if r.random() < 0.5:
                mark = self.open("while %s > 1 and %s < %s:" % (m, steps, r.choice(("20", "30", "50"))))
                m1 = self.open("if %s %% 2 == 0:" % m)
                self.emit("%s //= 2" % m)
                self.close(m1)
                m1 = self.open("else:")
                self.emit("%s = 3 * %s + 1" % (m, m))
                self.close(m1)
            else:
                mark = self.open("while %s > %s:" % (m, self.lit_int(1)))
                self.emit("%s //= %s" % (m, r.choice(("2", "2", "3"))))
            self.emit("%s += 1" % steps)
            self.close(mark)
            self.add(m, INT).size = None
            self.add(steps, INT, 50)
            return True
        if k == 6:
            seq = self.var_of((LI, LS))
            if seq is None or seq.size > room:
                return False
            stack = self.fresh(["stack", "queue", "todo", "pending", "work"])
            init = r.choice(("list(%s)", "sorted(%s)", "%s[:]")) % seq.name
            self.emit("%s = %s" % (stack, init))
            sv = self.add(stack, seq.t, seq.size)
            accs = self.new_accs([ELEM[seq.t]], r.choice((1, 1, 2)))
            ev = Var(self.fresh(ELEM_NAMES[ELEM[seq.t]]), ELEM[seq.t])
            if ev.t == INT:
                ev.size = None
            self.frozen.append(stack)
            mark = self.enter_loop("while %s:" % stack, seq.size, accs, hot=[ev])
            self.emit("%s = %s.pop(%s)" % (ev.name, stack, r.choice(("", "", "0"))))
            self.env.append(ev)
            for _ in range(r.choice((1, 2))):
                self.loop_stmt()
            self.leave_loop(mark, accs, 1)
            self.frozen.pop()
            sv.size = 1  # emptied
            return True
        if k == 7:
            n, size = self.small_int()
            if size > room:
                return False
            c = self.fresh(["k", "left", "remaining", "countdown", "c"])
            accs = self.new_accs([INT], 1)
            self.emit("%s = %s" % (c, n))
            cv = Var(c, INT, size)
            self.frozen.append(c)
            mark = self.enter_loop("while %s > 0:" % c, size, accs, hot=[cv])
            self.env.append(cv)
            for _ in range(r.choice((1, 2))):
                self.loop_stmt()
            self.emit("%s -= %s" % (c, r.choice(("1", "1", "2", "3"))))
            self.leave_loop(mark, accs, 1)
            self.frozen.pop()
            return True
        if k == 8:
            seq = self.var_of((LI, LS, STR))
            if seq is None or seq.hint == "char" or seq.size > room:
                return False
            lo, hi = self.fresh(["lo", "left", "i", "l"]), self.fresh(["hi", "right", "j", "r"])
            accs = self.new_accs([ELEM[seq.t]], 1)
            self.emit("%s, %s = 0, len(%s) - 1" % (lo, hi, seq.name))
            self.frozen.extend((lo, hi, seq.name))
            mark = self.enter_loop("while %s < %s:" % (lo, hi), seq.size, accs,
                                   idx=(lo, seq, [0]))
            self.idx.append((hi, seq, [0]))
            if r.random() < 0.35 and self.ret_t is not None:
                m1 = self.open("if %s[%s] != %s[%s]:" % (seq.name, lo, seq.name, hi))
                self.emit("return %s" % self.ret_expr_of(self.ret_t, 1))
                self.close(m1)
            else:
                self.loop_stmt()
            self.emit("%s += 1" % lo)
            self.emit("%s -= 1" % hi)
            self.leave_loop(mark, accs, 1)
            del self.frozen[-3:]
            return True
        # gcd-like / binary search
        if r.random() < 0.5:
            a, b = self.fresh(["a", "x", "p"]), self.fresh(["b", "y", "q"])
            self.emit("%s, %s = abs(%s), abs(%s)" % (a, b, self.vexpr(INT), self.vexpr(INT)))
            mark = self.open("while %s:" % b)
            self.emit("%s, %s = %s, %s %% %s" % (a, b, b, a, b))
            self.close(mark)
            self.add(a, INT).size = None
            return True
        seq = self.var(LI)
        if seq is None:
            return False
        arr, lo, hi, mid = (self.fresh(["arr", "ordered", "sorted_vals"]), self.fresh(["lo", "low"]),
                            self.fresh(["hi", "high"]), self.fresh(["mid", "m"]))
        pos = self.fresh(["pos", "index", "where", "found_at"])
        target = self.vexpr(INT)
        self.emit("%s = sorted(%s)" % (arr, seq.name))
        self.emit("%s, %s = 0, len(%s) - 1" % (lo, hi, arr))
        self.emit("%s = -1" % pos)
        mark = self.open("while %s <= %s:" % (lo, hi))
        self.emit("%s = (%s + %s) // 2" % (mid, lo, hi))
        m1 = self.open("if %s[%s] == %s:" % (arr, mid, target))
        self.emit("%s = %s" % (pos, mid))
        self.emit("break")
        self.close(m1)
        m1 = self.open("elif %s[%s] < %s:" % (arr, mid, target))
        self.emit("%s = %s + 1" % (lo, mid))
        self.close(m1)
        m1 = self.open("else:")
        self.emit("%s = %s - 1" % (hi, mid))
        self.close(m1)
        self.close(mark)
        self.add(arr, LI, seq.size)
        self.add(pos, INT, seq.size)
        return True

    def enter_loop(self, header, cost, accs, idx=None, hot=()):
        for a in accs:
            if a.t in SIZED:
                a.size = max(a.size, 2 * cost)
        mark = self.open(header)
        self.accs.extend(accs)
        if idx:
            self.idx.append(idx)
        self.hot.extend(hot)
        self.loop_depth += 1
        self.in_while += 1
        saved = self.mult
        self.mult *= max(cost, 1)
        return (mark, saved, len(hot))

    def finish_accs(self, accs):
        """Every accumulator a loop introduced is updated in it."""
        for v in accs:
            if not v.touched and self.lines_left() > -4:
                self.s_update(v)

    def leave_loop(self, state, accs, _):
        self.finish_accs(accs)
        mark, saved, nhot = state
        self.mult = saved
        self.loop_depth -= 1
        self.in_while -= 1
        if nhot:
            del self.hot[-nhot:]
        if accs:
            del self.accs[-len(accs):]
        self.close(mark)

    # -- try / raise / unpack -------------------------------------------------

    def risky(self):
        """A risky expression: (text, result type, exception names) or None."""
        r = self.r
        for _ in range(6):
            k = r.randrange(9)
            if k == 0:
                s = self.var(STR)
                if s is not None:
                    if s.param:
                        s.hint = "digits"
                    return "int(%s)" % s.name, INT, ["ValueError"]
            elif k == 1:
                seq = self.var_of((LI, LS, STR))
                i = self.var(INT)
                if seq is not None and i is not None and seq.hint != "char":
                    return "%s[%s]" % (seq.name, i.name), ELEM[seq.t], ["IndexError"]
            elif k == 2:
                d = self.var(DSI)
                if d is not None:
                    return "%s[%s]" % (d.name, self.key_expr()), INT, ["KeyError"]
            elif k == 3:
                seq = self.var_of((LI, LS))
                if seq is not None:
                    e = self.elem_expr(ELEM[seq.t], seq.name)
                    return "%s.index(%s)" % (seq.name, e), INT, ["ValueError"]
            elif k == 4:
                s = self.var(STR)
                if s is not None:
                    return "%s.index(%s)" % (s.name, self.lit_sub()), INT, ["ValueError"]
            elif k == 5:
                a = self.var(INT)
                b = self.var(INT, a.name if a else None)
                if a is not None and b is not None:
                    return "%s // %s" % (par(self.vexpr(INT)), b.name), INT, ["ZeroDivisionError"]
            elif k == 6:
                hs = [h for h in self.p.helpers if h.raises and h.name != self.name
                      and h.cost * self.mult <= LOOP_LIMIT]
                if hs:
                    h = r.choice(hs)
                    args = [self.arg_for(pt, hint) for pt, hint in zip(h.params, h.hints)]
                    if h.name not in self.called:
                        self.called.append(h.name)
                    return "%s(%s)" % (h.name, ", ".join(args)), h.ret, [h.raises]
            elif k == 7:
                seq = self.var_of((LI, LS))
                if seq is not None:
                    return "%s[0]" % seq.name, ELEM[seq.t], ["IndexError"]
            else:
                d = self.var(DSI)
                if d is not None:
                    return "%s[%s] %s %s" % (d.name, self.key_expr(), r.choice("+*-"),
                                             self.lit_int(1)), INT, ["KeyError"]
        return None

    def s_try(self, in_loop=False):
        r = self.r
        if self.nest >= 3 or self.lines_left() < 4:
            return False
        risk = self.risky()
        if risk is None:
            return False
        text, t, excs = risk
        if in_loop:
            target = self.mutable_target()
            if target is None:
                return False
            m = self.open("try:")
            tmp = self.fresh(TEMP_NAMES.get(t) or VAR_NAMES[t])
            self.emit("%s = %s" % (tmp, text))
            tv = self.add(tmp, t)
            if t == INT:
                tv.size = None
            self.hot.append(tv)
            self.s_update(target)
            self.hot.pop()
            self.close(m)
            m = self.open("except %s:" % self.exc_clause(excs))
            alt = [v for v in self.accs if v is not target and v.name not in self.frozen]
            if alt and r.random() < 0.6:
                self.s_update(r.choice(alt))
            else:
                self.emit(r.choice(("continue", "pass", "continue")) if not self.in_while
                          else "pass")
            self.close(m)
            return True
        name = self.fresh(VAR_NAMES[t] if r.random() < 0.5 else ACC_NAMES[t])
        m = self.open("try:")
        if r.random() < 0.2:
            mm = self.open("if %s:" % self.cond())
            self.emit("raise ValueError(%s)" % r.choice(EXC_MSGS))
            self.close(mm)
            if "ValueError" not in excs:
                excs = excs + ["ValueError"]
        self.emit("%s = %s" % (name, text))
        self.close(m)
        m = self.open("except %s:" % self.exc_clause(excs))
        fb = self.expr(t, 1)
        if r.random() < 0.5:
            fb = EMPTY[t] if t != INT else r.choice(("0", "-1", "0"))
        self.emit("%s = %s" % (name, fb))
        self.close(m)
        v = self.add(name, t)
        if t == INT:
            v.size = None
        if r.random() < 0.15 and self.lines_left() >= 2:
            m = self.open("else:")
            self.s_update(v) if t != BOOL else self.emit("pass")
            self.close(m)
        return True

    def exc_clause(self, excs):
        r = self.r
        x = r.random()
        if x < 0.1:
            return "Exception"
        if x < 0.2 and excs[0] != "IndexError":
            return "(%s, IndexError)" % ", ".join(excs)
        if len(excs) > 1:
            return "(%s)" % ", ".join(excs)
        return excs[0]

    def s_raise(self):
        """A deliberate, uncaught exception under a condition."""
        r = self.r
        if self.lines_left() < 2:
            return False
        exc = r.choice(("ValueError", "ValueError", "KeyError", "IndexError", "RuntimeError",
                        "TypeError"))
        mark = self.open("if %s:" % self.cond())
        v = self.var_of((INT, STR))
        if v is not None and r.random() < 0.5:
            self.emit("raise %s(f'%s: {%s}')" % (exc, r.choice(("bad", "invalid", "unexpected",
                                                               "too big", "no")), v.name))
        else:
            self.emit("raise %s(%s)" % (exc, r.choice(EXC_MSGS)))
        self.close(mark)
        return True

    def s_risky(self):
        risk = self.risky()
        if risk is None:
            return False
        text, t, _ = risk
        name = self.fresh(VAR_NAMES[t] if self.r.random() < 0.5 else ACC_NAMES[t])
        self.emit("%s = %s" % (name, text))
        v = self.add(name, t)
        if t == INT:
            v.size = None
        return True

    def s_unpack(self):
        r = self.r
        k = r.randrange(8)
        if k == 0:
            ints = [v for v in self.env if v.t == INT and v.name not in self.frozen
                    and v not in self.hot]
            if len(ints) >= 2:
                a, b = r.sample(ints, 2)
                self.emit("%s, %s = %s, %s" % (a.name, b.name, b.name, a.name))
                return True
        if k <= 1:
            q, rem = self.fresh(["q", "quot", "whole", "tens"]), self.fresh(["r", "rem", "rest", "ones"])
            self.emit("%s, %s = divmod(%s, %s)" % (q, rem, self.vexpr(INT), self.lit_int(2)))
            self.add(q, INT).size = None
            self.add(rem, INT).size = 20
            return True
        if k == 2:
            s = self.var(STR)
            if s is not None:
                sep = repr(r.choice(SPLIT_SEPS + [" "]))
                a, b, c = (self.fresh(["head", "before", "left", "first"]),
                           self.fresh(["sep", "mid", "_sep"]), self.fresh(["tail", "after", "right", "rest"]))
                self.emit("%s, %s, %s = %s.%s(%s)" % (a, b, c, s.name, r.choice(("partition",
                                                                                   "rpartition")), sep))
                self.add(a, STR)
                self.add(c, STR)
                return True
        if k == 3:
            v = self.var(LI)
            if v is not None:
                lo, hi = self.fresh(["lo", "smallest", "low", "mn"]), self.fresh(["hi", "largest", "high", "mx"])
                self.emit("%s, %s = min(%s, default=0), max(%s, default=0)" % (lo, hi, v.name, v.name))
                self.add(lo, INT).size = None
                self.add(hi, INT).size = None
                return True
        if k == 4:
            seq = self.var_of((LI, LS))
            if seq is not None and self.lines_left() >= 3:
                first, rest = self.fresh(["first", "head", "top"]), self.fresh(["rest", "others", "tail"])
                mark = self.open("if %s:" % seq.name)
                self.emit("%s, *%s = %s" % (first, rest, seq.name))
                self.env.append(Var(first, ELEM[seq.t]))
                self.env.append(Var(rest, seq.t))
                self.loop_stmt_simple() if self.loop_depth else self.s_update(
                    self.mutable_target() or Var(rest, seq.t))
                self.close(mark)
                return True
        if k == 5:
            a, b = self.fresh(["a", "prev", "x"]), self.fresh(["b", "cur", "y"])
            n, size = self.small_int()
            if size * self.mult <= LOOP_LIMIT and self.loop_depth == 0 and self.lines_left() >= 3:
                self.emit("%s, %s = %s, %s" % (a, b, r.choice(("0", "1")), r.choice(("1", "2"))))
                i = self.fresh(["_", "i", "step"])
                mark = self.open("for %s in range(%s):" % (i, n))
                self.emit("%s, %s = %s, %s" % (a, b, b, r.choice(("%s + %s" % (a, b),
                                                                  "%s + %s * 2" % (a, b),
                                                                  "%s * 2 - %s" % (b, a)))))
                self.close(mark)
                self.add(a, INT).size = None
                self.add(b, INT).size = None
                return True
        if k == 6:
            d = self.var(DSI)
            if d is not None and self.lines_left() >= 3:
                key, val = self.fresh(["best_key", "top", "winner", "name"]), self.fresh(["best_val", "top_count", "most", "amount"])
                self.emit("%s, %s = max(%s.items(), key=lambda kv: kv[1]) if %s else ('', 0)" % (
                    key, val, d.name, d.name))
                self.add(key, STR)
                self.add(val, INT).size = None
                return True
        v = self.var(LP)
        if v is not None:
            a, b = self.fresh(["name", "label", "key"]), self.fresh(["n", "count", "num"])
            self.emit("%s, %s = %s[0] if %s else ('', 0)" % (a, b, v.name, v.name))
            self.add(a, STR)
            self.add(b, INT).size = None
            return True
        return False

    def s_call(self):
        """Call a helper and keep its result."""
        r = self.r
        hs = [h for h in self.p.helpers if h.name != self.name and not h.raises
              and h.cost * self.mult <= LOOP_LIMIT]
        if not hs:
            return False
        uncalled = [h for h in hs if h.name not in self.called]
        h = r.choice(uncalled or hs)
        args = [self.arg_for(pt, hint) for pt, hint in zip(h.params, h.hints)]
        if h.name not in self.called:
            self.called.append(h.name)
        name = self.fresh(ACC_NAMES[h.ret] if r.random() < 0.5 else VAR_NAMES[h.ret])
        self.emit("%s = %s(%s)" % (name, h.name, ", ".join(args)))
        v = self.add(name, h.ret)
        if h.ret == INT:
            v.size = None
        return v

    # -- statement dispatch ---------------------------------------------------

    def stmt(self, kind=None):
        r = self.r
        if kind is None:
            kind = self.pick_type(self.weights["kinds"])
        if kind == "assign":
            self.s_assign(self.pick_type(self.weights["types"]))
            return
        ok = False
        if kind == "update":
            ok = self.s_update()
        elif kind == "if":
            ok = self.s_if()
        elif kind == "ifassign":
            ok = self.s_if_assign()
        elif kind == "for":
            ok = self.s_for()
        elif kind == "search":
            ok = self.s_for(search=True)
        elif kind == "while":
            ok = self.s_while()
        elif kind == "try":
            ok = self.s_try()
        elif kind == "raise":
            ok = self.s_raise()
        elif kind == "risky":
            ok = self.s_risky()
        elif kind == "unpack":
            ok = self.s_unpack()
        elif kind == "call":
            ok = self.s_call()
        if not ok:
            if r.random() < 0.5 and self.s_update():
                return
            self.s_assign(self.pick_type(self.weights["types"]))

    # -- returns ----------------------------------------------------------------

    def ret_expr_of(self, t, d=0):
        v = self.var(t)
        if v is not None and self.r.random() < 0.6:
            e = v.name
        else:
            e = self.expr(t, d)
        if t in (SI, SS) and e == v_name(v):
            return "sorted(%s)" % e
        return e

    def final_return(self):
        """Return what the function computed: preferably values not yet used,
        accumulators that were updated, the last value made."""
        r = self.r
        locals_ = [v for v in self.env if not v.param and not v.name.startswith("self.")]
        if not locals_:
            for _ in range(3):
                e = self.expr(self.ret_t, 0)
                if self.mentions(e):
                    break
            self.emit("return %s" % e)
            return
        unused = [v for v in locals_ if v.name in self.unused]
        touched = [v for v in locals_ if v.touched]
        typed = [v for v in locals_ if v.t == self.ret_t]
        if unused and r.random() < 0.8:
            main = unused[-1]
        elif touched and r.random() < 0.7:
            main = touched[-1] if r.random() < 0.6 else r.choice(touched)
        elif typed and r.random() < 0.5:
            main = typed[-1]
        else:
            main = locals_[-1]
        others = [v for v in (unused + touched) if v is not main]
        x = r.random()
        if len(unused) >= 2 and r.random() < 0.6:
            x = 0.0
        if x < 0.3 and others:
            b = others[0] if r.random() < 0.6 else r.choice(others)
            if r.random() < 0.5:
                main, b = b, main
            self.emit("return %s, %s" % (self.show(main), self.show(b)))
        elif x < 0.4:
            self.emit("return %s" % self.transform(main, self.ret_t) if main.t in (INT, STR)
                      and self.ret_t in (INT, STR, BOOL) else "return %s" % self.show(main))
        else:
            self.emit("return %s" % self.show(main))

    def show(self, v):
        r = self.r
        if v.t in (SI, SS):
            return "sorted(%s)" % v.name
        if v.t == LI and r.random() < 0.1:
            return "%s[:%s]" % (v.name, self.lit_int(1))
        if v.t == DSI and r.random() < 0.1:
            return "sorted(%s.items())" % v.name
        return v.name


def v_name(v):
    return v.name if v is not None else None


def _no_comprehension_in_hot_loops(method):
    """Comprehensions and generators iterate too (and are traced): inside
    loops that already run many times, draw an expression without one."""
    def wrapped(self, d=0, ex=None):
        e = method(self, d, ex)
        if self.mult * 8 > LOOP_LIMIT:
            for _ in range(5):
                if " for " not in e:
                    break
                e = method(self, d, ex)
        return e
    wrapped.__name__ = method.__name__
    wrapped.__doc__ = method.__doc__
    return wrapped


for _name in ("e_int", "e_str", "e_bool", "e_li", "e_ls", "e_dsi", "e_si", "e_ss", "e_lp"):
    setattr(Func, _name, _no_comprehension_in_hot_loops(getattr(Func, _name)))


# ---------------------------------------------------------------------------
# Families: what a program is mostly made of
# ---------------------------------------------------------------------------

def W(**kw):
    return list(kw.items())


BASE_TYPES = W(int=3, str=3, bool=1, list_int=2, list_str=2, dict=1.5, set_int=0.5,
               set_str=0.5, pairs=0.3)

FAMILIES = [
    # name, weight, param options, return types, statement kinds, assignment types, forced
    ("str_methods", 6, [(STR,), (STR, STR), (STR, INT), (STR,)], (STR, STR, BOOL, INT),
     W(assign=6, ifassign=1, **{"if": 1.5}, update=1, unpack=0.5),
     W(str=6, int=2, bool=1.5, list_str=1.5), ()),
    ("str_loop", 6, [(STR,), (STR, STR), (STR, INT)], (STR, INT, DSI, LS),
     W(assign=2, update=1, **{"for": 1}), W(str=4, int=2, list_str=1, bool=1), ("for",)),
    ("split_join", 5, [(STR,), (STR, STR), (STR, INT)], (STR, LS, INT),
     W(assign=4, update=1, **{"for": 1}), W(list_str=4, str=4, int=1, dict=0.5), ("assign_ls",)),
    ("list_ops", 6, [(LI,), (LI, INT), (LI, INT, INT), (LI, LI)], (LI, INT, LP),
     W(assign=3, update=4, **{"if": 1}), W(list_int=4, int=3, bool=0.5), ("update", "update")),
    ("list_filter", 6, [(LI,), (LI, INT), (LI, INT, INT)], (LI, INT, BOOL),
     W(assign=1.5, update=1, **{"for": 2}), W(int=2, list_int=2), ("for",)),
    ("sorting", 4, [(LI,), (LS,), (DSI,), (LS, INT), (LI, INT)], (LI, LS, LP),
     W(assign=5, update=1, unpack=1), W(list_int=3, list_str=3, pairs=2, int=1, str=1), ()),
    ("comprehension", 5, [(LI,), (LS,), (STR,), (LI, INT), (DSI,), (LS, INT)],
     (LI, LS, DSI, SI), W(assign=6, update=0.5), W(list_int=3, list_str=3, dict=2, set_int=1,
                                                   set_str=1, int=1), ()),
    ("dict_count", 5, [(STR,), (LS,), (LI,), (LS, INT), (STR, STR)], (DSI, LP, STR, INT),
     W(assign=2, update=1, **{"for": 1}, unpack=0.7), W(dict=3, pairs=2, list_str=1, int=1),
     ("count_loop",)),
    ("dict_ops", 5, [(DSI,), (DSI, STR), (DSI, STR, INT), (DSI, LS)], (DSI, INT, LS, LP),
     W(assign=3, update=4, **{"for": 1}, **{"if": 1}), W(dict=2, int=2, list_str=2, pairs=1), ()),
    ("set_ops", 4, [(LI, LI), (STR, STR), (LS,), (LI,), (LS, LS)], (SI, SS, INT, BOOL, LI, LS),
     W(assign=4, update=2, **{"for": 1}), W(set_int=3, set_str=3, int=1, bool=1, list_int=1),
     ("assign_set",)),
    ("tuple_unpack", 4, [(LI,), (DSI,), (STR,), (LI, LI), (LS, LI)], (LP, INT, STR),
     W(assign=2, unpack=4, **{"for": 1}), W(pairs=2, int=2, str=1), ("unpack",)),
    ("int_arith", 5, [(INT,), (INT, INT), (INT, INT, INT)], (INT, INT, BOOL, LI, STR),
     W(assign=5, update=2, unpack=1, ifassign=1, **{"if": 1}), W(int=8, bool=1, str=1), ()),
    ("while_loop", 6, [(INT,), (LI,), (STR,), (LI, INT), (INT, INT), (LS,)], (INT, LI, STR, BOOL),
     W(assign=2, update=1, **{"while": 1.5}), W(int=3, list_int=1, str=1), ("while",)),
    ("nested_if", 4, [(INT,), (INT, INT), (STR,), (LI,), (STR, INT)], (STR, INT, BOOL),
     W(assign=1, ifassign=3, **{"if": 2}), W(int=2, str=2, bool=1), ("ifassign",)),
    ("helper", 6, [(LI,), (STR,), (LS,), (LI, INT), (STR, INT), (INT,)], (LI, INT, STR, LS),
     W(assign=2, update=1, **{"for": 1.5}, call=2), W(int=2, str=2, list_int=1, list_str=1),
     ("helper",)),
    ("recursion", 5, None, None, W(assign=1), W(int=1), ("recursion",)),
    ("try_except", 5, [(STR,), (LI, INT), (DSI, STR), (LS,), (LI, LI), (INT, INT), (DSI, LS)],
     (INT, LI, STR), W(assign=1.5, try_=3, **{"for": 1}), W(int=2, str=1, list_int=1), ("try",)),
    ("uncaught", 3, [(LI, INT), (DSI, STR), (STR,), (LS, STR), (INT, INT)], (INT, STR, LI),
     W(assign=2, update=1, **{"for": 0.5}), W(int=2, str=1, list_int=1), ("risky_or_raise",)),
    ("class", 2, None, None, W(assign=1), W(int=1), ("class",)),
    ("accumulate", 5, [(LI,), (LI, INT), (STR,), (LS,)], (LI, INT, STR),
     W(assign=1, update=1, **{"for": 2}), W(int=2, list_int=1), ("for",)),
    ("string_build", 4, [(STR, INT), (LS,), (LS, STR), (STR,), (DSI,)], (STR, LS),
     W(assign=3, update=2, **{"for": 1}), W(str=5, int=1, list_str=1), ()),
    ("two_lists", 3, [(LI, LI), (LS, LI), (LS, LS), (STR, STR)], (LI, LP, DSI, INT, LS),
     W(assign=3, update=1, **{"for": 1.5}), W(list_int=2, pairs=1, dict=1, int=1), ("zip",)),
    ("search", 4, [(LI, INT), (LS, STR), (STR, STR), (LI,), (DSI, INT)], (INT, STR, BOOL),
     W(assign=2, update=0.5), W(int=2, str=1, list_int=1), ("search",)),
    ("mixed", 8, [(LI,), (STR,), (LS,), (DSI,), (LI, INT), (STR, INT), (LS, STR), (INT, INT),
                  (STR, STR), (LI, LI), (DSI, STR), (LI, STR)],
     (INT, STR, LI, LS, DSI, BOOL, LP),
     W(assign=4, update=2, **{"if": 1.5}, **{"for": 2}, **{"while": 0.6}, try_=0.6, unpack=0.6,
       ifassign=0.8, raise_=0.2),
     list(BASE_TYPES), ()),
]


def normalise_kinds(weights):
    out = []
    for k, w in weights:
        out.append((k.rstrip("_"), w))
    return out


FAMILY_TABLE = []
for _row in FAMILIES:
    FAMILY_TABLE.append((_row[0], _row[1], _row[2], _row[3],
                         {"kinds": normalise_kinds(_row[4]), "types": _row[5]}, _row[6]))
FAMILY_NAMES = [row[0] for row in FAMILY_TABLE]


# ---------------------------------------------------------------------------
# Building programs
# ---------------------------------------------------------------------------

def make_params(prog, types, used_hint=None):
    params = []
    names = set()
    r = prog.r
    for t in types:
        for _ in range(8):
            name = r.choice(VAR_NAMES[t])
            if name not in names and name not in prog.taken:
                break
        else:
            name = "%s%d" % (VAR_NAMES[t][0], len(params) + 1)
        names.add(name)
        v = Var(name, t, param=True)
        if t == INT:
            v.size = 30
        params.append(v)
    return params


def build_entry(prog, fam, weights, ptypes, rets):
    r = prog.r
    name = "f" if r.random() < 0.7 else prog.take(ENTRY_NAMES)
    prog.taken.add(name)
    params = make_params(prog, ptypes)
    fn = Func(prog, name, params, weights, r.randint(5, 18))
    fn.ret_t = r.choice(rets)
    return fn


def guard(fn):
    """`if not xs: return <default>` at the top."""
    r = fn.r
    seqs = [v for v in fn.params if v.t in SIZED]
    if not seqs or r.random() > 0.25:
        return
    v = r.choice(seqs)
    mark = fn.open(r.choice(("if not %s:", "if len(%s) == 0:", "if not %s:")) % v.name)
    fn.emit("return %s" % (EMPTY[fn.ret_t] if r.random() < 0.7 else
                           ("-1" if fn.ret_t == INT else EMPTY[fn.ret_t])))
    fn.close(mark)


def forced(fn, what):
    r = fn.r
    if what == "for":
        if not fn.s_for():
            fn.stmt()
    elif what == "while":
        if not fn.s_while():
            if not fn.s_while():
                fn.stmt()
    elif what == "update":
        fn.s_update()
    elif what == "try":
        if not fn.s_try():
            fn.stmt()
    elif what == "unpack":
        if not fn.s_unpack():
            fn.s_unpack()
    elif what == "ifassign":
        if not fn.s_if_assign():
            fn.stmt()
    elif what == "search":
        if not fn.s_for(search=True):
            fn.stmt()
    elif what == "assign_ls":
        fn.s_assign(LS)
    elif what == "assign_set":
        fn.s_assign(r.choice((SI, SS)))
    elif what == "risky_or_raise":
        if r.random() < 0.45:
            fn.s_raise()
        elif not fn.s_risky():
            fn.s_raise()
    elif what == "zip":
        a = [v for v in fn.env if v.t in (LI, LS, STR)]
        if len(a) >= 2:
            x, y = a[0], a[1]
            ea = Var(fn.fresh(["a", "x", "p", "left"]), ELEM[x.t], hint="char" if x.t == STR else "")
            eb = Var(fn.fresh(["b", "y", "q", "right"]), ELEM[y.t], hint="char" if y.t == STR else "")
            ea.size = eb.size = None if ea.t == INT else 0
            if ea.t != INT:
                ea.size = DEFAULT_SIZE[ea.t]
            if eb.t == INT:
                eb.size = None
            else:
                eb.size = DEFAULT_SIZE[eb.t]
            accs = fn.new_accs([ea.t, eb.t], 1)
            mark = fn.open("for %s, %s in zip(%s, %s):" % (ea.name, eb.name, x.name, y.name))
            fn.env.extend((ea, eb))
            fn.hot.extend((ea, eb))
            fn.accs.extend(accs)
            fn.loop_depth += 1
            fn.mult *= 10
            fn.loop_stmt()
            if r.random() < 0.5:
                fn.loop_stmt()
            fn.mult //= 10
            fn.loop_depth -= 1
            del fn.accs[-len(accs):]
            del fn.hot[-2:]
            fn.close(mark)
        else:
            fn.stmt()
    elif what == "count_loop":
        count_loop(fn)
    else:
        fn.stmt()


def count_loop(fn):
    """Count occurrences into a dict (the classic tally), then the generic rest."""
    r = fn.r
    src = fn.var_of((STR, LS, LI))
    if src is None or src.size * fn.mult > LOOP_LIMIT:
        fn.stmt()
        return
    name = fn.fresh(ACC_NAMES[DSI])
    fn.emit("%s = {}" % name)
    acc = fn.add(name, DSI)
    if src.t == STR:
        if r.random() < 0.5:
            ev = Var(fn.fresh(ELEM_NAMES["char"]), STR, hint="char")
            header = "for %s in %s:" % (ev.name, src.name)
        else:
            ev = Var(fn.fresh(ELEM_NAMES[STR]), STR, hint="word")
            header = "for %s in %s.split():" % (ev.name, src.name)
        key = ev.name
    elif src.t == LS:
        ev = Var(fn.fresh(ELEM_NAMES[STR]), STR, hint="word")
        header = "for %s in %s:" % (ev.name, src.name)
        key = ev.name if r.random() < 0.7 else r.choice(("%s.lower()", "%s[:1]", "%s[0]")) % ev.name
        if key.endswith("[0]"):
            key = "%s[:1]" % ev.name
    else:
        ev = Var(fn.fresh(ELEM_NAMES[INT]), INT, 30)
        header = "for %s in %s:" % (ev.name, src.name)
        key = r.choice(("str(%s)", "str(%s %% 3)", "'even' if %s %% 2 == 0 else 'odd'",
                        "'pos' if %s > 0 else 'neg'")) % ev.name
        if "if" in key:
            key_name = fn.fresh(["bucket", "kind", "label", "group"])
            mark = fn.open(header)
            fn.env.append(ev)
            fn.hot.append(ev)
            fn.emit("%s = %s" % (key_name, key))
            key = key_name
            _count_update(fn, name, key, ev)
            fn.hot.pop()
            fn.close(mark)
            return
    mark = fn.open(header)
    fn.env.append(ev)
    fn.hot.append(ev)
    fn.loop_depth += 1
    if r.random() < 0.3:
        m2 = fn.open("if %s:" % fn.e_bool(0))
        fn.emit("continue")
        fn.close(m2)
    _count_update(fn, name, key, ev)
    fn.loop_depth -= 1
    fn.hot.pop()
    fn.close(mark)
    acc.touched = True


def _count_update(fn, name, key, ev):
    r = fn.r
    k = r.randrange(4)
    if k == 0:
        fn.emit("%s[%s] = %s.get(%s, 0) + 1" % (name, key, name, key))
    elif k == 1:
        m = fn.open("if %s in %s:" % (key, name))
        fn.emit("%s[%s] += 1" % (name, key))
        fn.close(m)
        m = fn.open("else:")
        fn.emit("%s[%s] = 1" % (name, key))
        fn.close(m)
    elif k == 2:
        m = fn.open("if %s not in %s:" % (key, name))
        fn.emit("%s[%s] = 0" % (name, key))
        fn.close(m)
        fn.emit("%s[%s] += 1" % (name, key))
    else:
        fn.emit("%s.setdefault(%s, 0)" % (name, key))
        fn.emit("%s[%s] += %s" % (name, key, "1" if ev.t != INT or r.random() < 0.5 else ev.name))


def make_helper(prog, kind=None, cheap=False):
    """A helper function (defined before the entry), registered for calls."""
    r = prog.r
    if kind is None:
        kind = r.choice(("plain", "plain", "plain", "pred", "loop", "raises"))
    if cheap and kind == "loop":
        kind = "plain"
    name = prog.take(HELPER_NAMES)
    if kind == "pred":
        ptypes = [r.choice((INT, STR, STR))]
        ret = BOOL
    else:
        ptypes = [r.choice((INT, INT, STR, STR, LI, LS))]
        if r.random() < 0.35:
            ptypes.append(r.choice((INT, STR)))
        ret = r.choice((INT, INT, STR, BOOL)) if kind != "loop" else r.choice((INT, STR, LI))
    params = make_params(prog, ptypes)
    for p in params:
        if p.t == STR and r.random() < 0.5:
            p.hint = "word"
        if p.t in SIZED:
            p.size = 40  # callers may pass anything: no nested loops over it
        if p.t == INT:
            p.size = None
    weights = {"kinds": W(assign=3, update=1, ifassign=1, **{"if": 1}),
               "types": W(int=3, str=2, bool=1)}
    fn = Func(prog, name, params, weights, r.randint(1, 5), helper_ok=False)
    fn.hot = list(params)  # use the parameters; never mutate them
    fn.ret_t = ret
    cost = 1
    raises = None
    # a helper is never a lone `return <expression>`: one-line functions are
    # where a generated program is likeliest to meet a benchmark problem
    if kind == "pred":
        fn.s_assign(r.choice((INT, STR)))
        fn.emit("return %s" % fn.e_bool(0))
    else:
        if kind == "raises":
            raises = "ValueError"
            mark = fn.open("if %s:" % fn.e_bool(0))
            fn.emit("raise ValueError(%s)" % r.choice(EXC_MSGS))
            fn.close(mark)
        if kind == "loop":
            fn.max_lines = 8
            fn.s_for()
            cost = 40
        for i in range(r.randint(1, 2)):
            if i and fn.lines_left() <= 1:
                break
            fn.stmt()
        body_ret(fn)
    h = Helper(name, ptypes, ret, cost, raises)
    prog.helpers.append(h)
    prog.chunks.append(["def %s(%s):" % (name, ", ".join(p.name for p in params))] + fn.lines)
    return h


def body_ret(fn):
    """Return something of fn.ret_t (helpers must honour their declared type)."""
    r = fn.r
    t = fn.ret_t
    want = [v.name for v in fn.params if v.name in fn.unused]
    cands = [v for v in fn.env if v.t == t and not v.param]
    if cands and r.random() < 0.7 and not want:
        e = cands[-1].name
    else:
        for _ in range(4):
            e = fn.expr(t, 0)
            if not want or any(w in e for w in want):
                break
        if t in MUTABLE and is_ident(e):
            e = COPY[t] % e
    fn.emit("return %s" % e)


def make_recursive(prog, as_entry):
    """A bounded recursive function; returns its Helper record."""
    r = prog.r
    kind = r.choice(("int", "int", "int2", "list", "list", "str", "str", "fib", "bsearch"))
    if kind == "bsearch":
        as_entry = False
    name = "f" if as_entry and r.random() < 0.7 else prog.take(REC_NAMES + ENTRY_NAMES
                                                            if as_entry else REC_NAMES)
    prog.taken.add(name)
    hints = None
    weights = {"kinds": W(assign=1), "types": W(int=1)}
    if kind in ("int", "fib"):
        params = make_params(prog, [INT])
        n = params[0].name
        fn = Func(prog, name, params, weights, 6)
        base_cond = r.choice(("%s <= 0", "%s < 1", "%s == 0", "%s <= 1", "%s < 2"))
        if kind == "fib":
            base_cond = r.choice(("%s < 2", "%s <= 1"))
        base = r.choice(("0", "1", n, "[]", "''"))
        if kind == "fib":
            base = r.choice((n, "1", n))
        mark = fn.open("if %s:" % (base_cond % n))
        fn.emit("return %s" % base)
        fn.close(mark)
        step = r.choice(("%s - 1", "%s - 1", "%s - 2", "%s // 2"))
        if base_cond % n == "%s == 0" % n and step != "%s - 1":
            step = "%s - 1"
        rec = "%s(%s)" % (name, step % n)
        if kind == "fib":
            combo = "%s(%s - 1) + %s(%s - 2)" % (name, n, name, n)
            if r.random() < 0.3:
                combo = "%s(%s - 1) + %s * %s(%s - 2)" % (name, n, r.choice("23"), name, n)
            ret = INT
            hints = ["tiny"]
        elif base == "[]":
            ret = LI
            hints = ["small"]
            combo = r.choice(("[%s] + %s" % (n, rec), "%s + [%s]" % (rec, n),
                              "[%s * %s] + %s" % (n, n, rec)))
        elif base == "''":
            ret = STR
            hints = ["small"]
            combo = r.choice(("str(%s) + %s" % (n, rec), "%s + str(%s %% 10)" % (rec, n),
                              "%s + %s" % (rec, r.choice(("'*'", "'ab'", "'-'")))))
        else:
            ret = INT
            hints = ["small"]
            if step == "%s // 2":
                combo = r.choice(("%s + %s %% 2" % (rec, n), "1 + %s" % rec, "%s * 10 + %s %% 2" % (rec, n)))
            else:
                combo = r.choice(("%s + %s" % (n, rec), "%s * %s" % (n, rec) if step == "%s - 1" else
                                  "%s + %s" % (n, rec), "%s + %s" % (rec, r.choice(("1", "2", n))),
                                  "%s - %s" % (n, rec), "max(%s, %s %% 7)" % (rec, n),
                                  "%s + %s %% 3" % (rec, n)))
        if r.random() < 0.3 and rec in combo:
            tmp = fn.fresh(["rest", "sub", "prev", "below"])
            fn.emit("%s = %s" % (tmp, rec))
            combo = combo.replace(rec, tmp, 1)
        fn.emit("return %s" % combo)
        ptypes = [INT]
    elif kind == "int2":
        params = make_params(prog, [INT, INT])
        a, b = params[0].name, params[1].name
        fn = Func(prog, name, params, weights, 6)
        if r.random() < 0.5:
            mark = fn.open("if %s == 0:" % b)
            fn.emit("return %s" % r.choice((a, "abs(%s)" % a)))
            fn.close(mark)
            fn.emit("return %s(%s, %s %% %s)" % (name, b, a, b))
            hints = ["", ""]
        else:
            mark = fn.open("if %s <= 0:" % b)
            fn.emit("return %s" % r.choice(("1", "0", a)))
            fn.close(mark)
            fn.emit("return %s %s %s(%s, %s - 1)" % (a, r.choice(("*", "+", "+")), name, a, b))
            hints = ["", "tiny"]
        ret = INT
        ptypes = [INT, INT]
    elif kind in ("list", "str"):
        t = LI if kind == "list" else STR
        params = make_params(prog, [t])
        xs = params[0].name
        fn = Func(prog, name, params, weights, 8)
        if kind == "str":
            fn.hot = []
        ret = r.choice((INT, t, t, BOOL if kind == "str" else INT))
        if r.random() < 0.25 and kind == "list":
            # quicksort
            pivot = fn.fresh(["pivot", "first", "p"])
            x = fn.tmp(["x", "v", "n"])
            mark = fn.open("if len(%s) <= 1:" % xs)
            fn.emit("return %s" % xs)
            fn.close(mark)
            fn.emit("%s = %s[0]" % (pivot, xs))
            cmp = r.choice(("<", "<="))
            flip = r.random() < 0.3
            lo = "[%s for %s in %s[1:] if %s %s %s]" % (x, x, xs, x, cmp, pivot)
            hi = "[%s for %s in %s[1:] if not %s %s %s]" % (x, x, xs, x, cmp, pivot)
            if flip:
                lo, hi = hi, lo
            fn.emit("return %s(%s) + [%s] + %s(%s)" % (name, lo, pivot, name, hi))
            ret = LI
        elif kind == "str" and ret == BOOL:
            mark = fn.open("if len(%s) < 2:" % xs)
            fn.emit("return True")
            fn.close(mark)
            mark = fn.open("if %s[0] != %s[-1]:" % (xs, xs))
            fn.emit("return False")
            fn.close(mark)
            fn.emit("return %s(%s[1:-1])" % (name, xs))
        else:
            mark = fn.open(r.choice(("if not %s:", "if len(%s) == 0:")) % xs)
            fn.emit("return %s" % (EMPTY[ret] if ret != INT else r.choice(("0", "0", "1"))))
            fn.close(mark)
            head = Var(fn.fresh(["head", "first", "x", "c"]), ELEM[t], hint="char" if t == STR else "")
            rest = "%s[1:]" % xs
            use_local = r.random() < 0.5
            if use_local:
                fn.emit("%s = %s[0]" % (head.name, xs))
                h = head.name
            else:
                h = "%s[0]" % xs
            hv = Var(h, ELEM[t], hint="char" if t == STR else "")
            hv.size = None
            fn.hot.append(hv)
            fn.env.append(hv)
            rec = "%s(%s)" % (name, rest)
            if ret == INT:
                if r.random() < 0.5:
                    cond = fn.e_bool(1)
                    combo = "(1 if %s else 0) + %s" % (cond, rec)
                elif t == LI:
                    combo = r.choice(("%s + %s" % (h, rec), "max(%s, %s)" % (h, rec),
                                      "%s %% 5 + %s" % (h, rec), "%s * 2 + %s" % (h, rec)))
                else:
                    combo = "%s + %s" % (rec, fn.e_int(1))
            elif ret == LI:
                e = fn.e_int(1)
                if r.random() < 0.4:
                    cond = fn.e_bool(1)
                    combo = "([%s] if %s else []) + %s" % (e, cond, rec)
                else:
                    combo = r.choice(("[%s] + %s" % (e, rec), "%s + [%s]" % (rec, e)))
            else:
                e = fn.e_str(1)
                if r.random() < 0.4:
                    cond = fn.e_bool(1)
                    combo = "(%s if %s else %s) + %s" % (e, cond, h, rec)
                else:
                    combo = r.choice(("%s + %s" % (par(e), rec), "%s + %s" % (rec, par(e))))
            fn.emit("return %s" % combo)
        hints = [""]
        ptypes = [t]
    else:  # binary search over a sorted list
        params = make_params(prog, [LI, INT, INT, INT])
        xs, target, lo, hi = (p.name for p in params)
        fn = Func(prog, name, params, weights, 12)
        mark = fn.open("if %s > %s:" % (lo, hi))
        fn.emit("return -1")
        fn.close(mark)
        fn.emit("mid = (%s + %s) // 2" % (lo, hi))
        mark = fn.open("if %s[mid] == %s:" % (xs, target))
        fn.emit("return mid")
        fn.close(mark)
        mark = fn.open("if %s[mid] < %s:" % (xs, target))
        fn.emit("return %s(%s, %s, mid + 1, %s)" % (name, xs, target, hi))
        fn.close(mark)
        fn.emit("return %s(%s, %s, %s, mid - 1)" % (name, xs, target, lo))
        ret = INT
        ptypes = [LI, INT, INT, INT]
        hints = ["", "", "", ""]
        h = Helper(name, ptypes, ret, 10, None, hints)
        h.hints = ["bsearch"] * 4
        prog.chunks.append(["def %s(%s):" % (name, ", ".join(p.name for p in params))] + fn.lines)
        return h, params
    h = Helper(name, ptypes, ret, 40 if kind != "fib" else 70, None, hints)
    prog.chunks.append(["def %s(%s):" % (name, ", ".join(p.name for p in params))] + fn.lines)
    return h, params


def build_recursion(prog, fam_weights):
    r = prog.r
    as_entry = r.random() < 0.45
    h, params = make_recursive(prog, as_entry)
    if as_entry and h.hints != ["bsearch"] * 4:
        for p, hint in zip(params, h.hints):
            if hint:
                p.hint = hint
        prog.entry = (h.name, params)
        return
    if h.hints == ["bsearch"] * 4:
        name = "f" if r.random() < 0.7 else prog.take(ENTRY_NAMES)
        prog.taken.add(name)
        ps = make_params(prog, [LI, INT])
        fn = Func(prog, name, ps, fam_weights, 8)
        arr = fn.fresh(["arr", "ordered", "sorted_nums"])
        fn.emit("%s = sorted(%s)" % (arr, ps[0].name))
        fn.emit("%s = %s(%s, %s, 0, len(%s) - 1)" % ("idx", h.name, arr, ps[1].name, arr))
        fn.used.add("idx")
        fn.add(arr, LI)
        fn.add("idx", INT).size = None
        if r.random() < 0.5:
            fn.stmt()
        fn.ret_t = INT
        fn.final_return()
        prog.chunks.append(["def %s(%s):" % (name, ", ".join(p.name for p in ps))] + fn.lines)
        prog.entry = (name, ps)
        return
    # f calls the recursive helper with a bounded argument
    name = "f" if r.random() < 0.75 else prog.take(ENTRY_NAMES)
    prog.taken.add(name)
    ptypes = list(r.choice([(LI,), (STR,), (INT,), (LI, INT), (STR, INT), (LS,), (INT, INT)]))
    ps = make_params(prog, ptypes)
    for p in ps:
        if p.t == INT and "tiny" in h.hints:
            p.hint = "tiny"
            p.size = 8
    fn = Func(prog, name, ps, fam_weights, r.randint(3, 9))
    fn.ret_t = h.ret
    prog.helpers.append(h)
    if r.random() < 0.4:
        fn.stmt()
    v = fn.s_call()
    if not v:
        args = [fn.arg_for(pt, hint) for pt, hint in zip(h.params, h.hints)]
        res = fn.fresh(ACC_NAMES[h.ret])
        fn.emit("%s = %s(%s)" % (res, h.name, ", ".join(args)))
        fn.add(res, h.ret)
    if r.random() < 0.5:
        fn.stmt()
    fn.final_return()
    prog.chunks.append(["def %s(%s):" % (name, ", ".join(p.name for p in ps))] + fn.lines)
    prog.entry = (name, ps)


def build_class(prog, fam_weights):
    r = prog.r
    cname = prog.take(CLASS_NAMES)
    ctor_t = r.choice((INT, INT, STR, None))
    attrs = []
    lines = ["class %s:" % cname]
    init_params = []
    if ctor_t is not None:
        pname = r.choice(VAR_NAMES[ctor_t][:6])
        init_params.append(Var(pname, ctor_t, param=True))
    lines.append("    def __init__(self%s):" % "".join(", " + p.name for p in init_params))
    for p in init_params:
        attr = Var("self." + p.name, p.t)
        attr.size = None if p.t == INT else attr.size
        attrs.append(attr)
        lines.append("        self.%s = %s" % (p.name, p.name))
    n_extra = r.randint(1, 2)
    taken_attrs = set(a.name for a in attrs)
    for _ in range(n_extra):
        t = r.choice((INT, INT, LI, LS, DSI, STR))
        for _ in range(5):
            an = r.choice(ACC_NAMES[t])
            if "self." + an not in taken_attrs:
                break
        else:
            an = an + "2"
        taken_attrs.add("self." + an)
        a = Var("self." + an, t)
        if t == INT:
            a.size = None
        attrs.append(a)
        lines.append("        self.%s = %s" % (an, EMPTY[t]))
    # the update method
    elem_t = r.choice((INT, STR))
    mname = r.choice([m for m in ("add", "push", "record", "feed", "update", "put", "take",
                                  "process") if "self." + m not in taken_attrs])
    arg = Var(r.choice(ELEM_NAMES[elem_t][:4]), elem_t, param=True)
    if elem_t == INT:
        arg.size = 30
    weights = {"kinds": W(update=3, ifassign=0.5, **{"if": 2}), "types": W(int=1, str=1)}
    m = Func(prog, mname, [arg], weights, r.randint(2, 5), helper_ok=False, ind=2)
    m.env.extend(attrs)
    m.accs = [a for a in attrs if a.t != STR or r.random() < 0.5]
    m.hot = [arg]
    m.loop_depth = 0
    m.ret_t = None
    for _ in range(r.randint(1, 3)):
        if m.lines_left() <= 0:
            break
        if r.random() < 0.55:
            a = r.choice(attrs)
            m.s_update(a) if a.t != BOOL else m.s_update()
        else:
            m.s_if()
    if r.random() < 0.3:
        m.emit("return %s" % m.e_int(1))
    lines.append("")
    lines.append("    def %s(self, %s):" % (mname, arg.name))
    lines.extend(m.lines)
    # a query method
    qname = r.choice([m for m in ("result", "summary", "value", "report", "get", "total_value",
                                  "snapshot") if "self." + m not in taken_attrs])
    q = Func(prog, qname, [], weights, 3, helper_ok=False, ind=2)
    q.env.extend(attrs)
    qt = r.choice((INT, STR, LI, BOOL, INT))
    if r.random() < 0.4:
        q.s_assign(r.choice((INT, STR)))
    q.emit("return %s" % q.expr(qt, 0))
    lines.append("")
    lines.append("    def %s(self):" % qname)
    lines.extend(q.lines)
    prog.chunks.append(lines)
    # entry
    name = "f" if r.random() < 0.7 else prog.take(ENTRY_NAMES)
    prog.taken.add(name)
    seq_t = LI if elem_t == INT else r.choice((LS, STR))
    ptypes = [seq_t] + ([ctor_t] if ctor_t is not None and r.random() < 0.7 else [])
    ps = make_params(prog, ptypes)
    fn = Func(prog, name, ps, fam_weights, r.randint(4, 10))
    obj = fn.fresh(["obj", "c", "t", "acc", "box", "tracker", "inst"])
    if ctor_t is not None:
        ctor_arg = ps[1].name if len(ps) > 1 else fn.expr(ctor_t, 1)
    else:
        ctor_arg = ""
    fn.emit("%s = %s(%s)" % (obj, cname, ctor_arg))
    ev = Var(fn.fresh(ELEM_NAMES[elem_t] if seq_t != STR else ELEM_NAMES["char"]), elem_t)
    mark = fn.open("for %s in %s:" % (ev.name, ps[0].name))
    fn.env.append(ev)
    fn.hot.append(ev)
    if r.random() < 0.4:
        m2 = fn.open("if %s:" % fn.e_bool(1))
        fn.emit("%s.%s(%s)" % (obj, mname, ev.name))
        fn.close(m2)
    else:
        fn.emit("%s.%s(%s)" % (obj, mname, ev.name))
    fn.hot.pop()
    fn.close(mark)
    out = [attr.name.replace("self.", obj + ".") for attr in attrs]
    x = r.random()
    if x < 0.4:
        fn.emit("return %s.%s()" % (obj, qname))
    elif x < 0.7:
        fn.emit("return %s.%s(), %s" % (obj, qname, r.choice(out)))
    else:
        fn.emit("return %s" % r.choice(out))
    prog.chunks.append(["def %s(%s):" % (name, ", ".join(p.name for p in ps))] + fn.lines)
    prog.entry = (name, ps)


def build_program(rng):
    r = rng
    fam = pick_family(r)
    name, _, popts, rets, weights, force = fam
    prog = Program(r, name)
    if "recursion" in force:
        build_recursion(prog, weights)
    elif "class" in force:
        build_class(prog, weights)
    else:
        n_help = 0
        if "helper" in force:
            n_help = r.choice((1, 1, 2))
        elif r.random() < 0.12:
            n_help = 1
        for _ in range(n_help):
            make_helper(prog, cheap=False)
        fn = build_entry(prog, fam, weights, list(r.choice(popts)), rets)
        guard(fn)
        jobs = list(force)
        if "helper" in jobs:
            jobs.remove("helper")
            jobs.append("call")
        n_main = r.choice((1, 2, 2, 3, 3, 4))
        slots = [None] * n_main + jobs
        if jobs:
            # forced blocks go in at a random place among the free ones
            r.shuffle(slots)
        for job in slots:
            if fn.lines_left() <= 1:
                break
            if job is None:
                fn.stmt()
            elif job == "call":
                if not fn.s_call():
                    fn.stmt()
            else:
                forced(fn, job)
        for h in prog.helpers:
            if h.name not in fn.called and not h.raises and h.name != fn.name:
                args = [fn.arg_for(pt, hint) for pt, hint in zip(h.params, h.hints)]
                res = fn.fresh(ACC_NAMES[h.ret])
                fn.emit("%s = %s(%s)" % (res, h.name, ", ".join(args)))
                fn.called.append(h.name)
                v = fn.add(res, h.ret)
                if h.ret == INT:
                    v.size = None
            elif h.raises and h.name not in fn.called:
                if not fn.s_try():
                    args = [fn.arg_for(pt, hint) for pt, hint in zip(h.params, h.hints)]
                    res = fn.fresh(ACC_NAMES[h.ret])
                    fn.emit("%s = %s(%s)" % (res, h.name, ", ".join(args)))
                    fn.add(res, h.ret)
        fn.final_return()
        prog.chunks.append(["def %s(%s):" % (fn.name, ", ".join(p.name for p in fn.params))]
                           + fn.lines)
        prog.entry = (fn.name, fn.params)
    source = "\n\n\n".join("\n".join(chunk) for chunk in prog.chunks) + "\n"
    calls = make_calls(prog)
    return source, calls, name


_FAMILY_CUM = []
_acc = 0.0
for _row in FAMILY_TABLE:
    _acc += _row[1]
    _FAMILY_CUM.append(_acc)
del _acc


def pick_family(r):
    x = r.random() * _FAMILY_CUM[-1]
    for row, c in zip(FAMILY_TABLE, _FAMILY_CUM):
        if x < c:
            return row
    return FAMILY_TABLE[-1]


# ---------------------------------------------------------------------------
# Entry calls: literal arguments drawn to exercise the program
# ---------------------------------------------------------------------------

def arg_int(prog, hint):
    r = prog.r
    if hint == "tiny":
        return r.randint(0, 8)
    if hint == "small":
        return r.randint(0, 20)
    if prog.int_lits and r.random() < 0.2:
        v = r.choice(prog.int_lits)
        return v if v <= 30 else r.randint(0, 10)
    x = r.random()
    if x < 0.12:
        return -r.randint(1, 5)
    if x < 0.72:
        return r.randint(0, 10)
    return r.randint(11, 30)


def word_for(prog):
    r = prog.r
    x = r.random()
    if prog.str_lits and x < 0.25:
        w = r.choice(prog.str_lits)
        if len(w) >= 2 and w.strip():
            return w
    if x < 0.8:
        w = r.choice(prog.vocab)
    else:
        w = r.choice(WORDS)
    y = r.random()
    if y < 0.12:
        w = w.capitalize()
    elif y < 0.17:
        w = w.upper()
    elif y < 0.25:
        w = w + str(r.randint(0, 99))
    return w


def arg_str(prog, hint):
    r = prog.r
    if hint == "digits":
        x = r.random()
        if x < 0.6:
            return str(r.randint(0, 999))
        if x < 0.7:
            return "-" + str(r.randint(1, 99))
        if x < 0.8:
            return ""
        return word_for(prog)
    if hint == "char":
        if prog.str_lits and r.random() < 0.4:
            c = r.choice(prog.str_lits)
            if len(c) == 1:
                return c
        return r.choice("abcdeiouxyzAEB01 -!")
    if hint.startswith("sep") and r.random() < 0.85:
        sep = hint[3:]
        n = r.randint(0, 5)
        return sep.join(word_for(prog) if r.random() < 0.85 else str(r.randint(0, 20))
                        for _ in range(n))
    if hint == "word":
        return word_for(prog)
    x = r.random()
    if x < 0.45:
        n = r.randint(1, 6)
        s = " ".join(word_for(prog) for _ in range(n))
    elif x < 0.65:
        s = word_for(prog)
    elif x < 0.75:
        s = "".join(r.choice("abcxyz0123456789AB") for _ in range(r.randint(1, 10)))
    elif x < 0.82:
        s = r.choice(prog.str_lits) if prog.str_lits else ""
        s = s + word_for(prog) + (r.choice(prog.str_lits) if prog.str_lits else "")
    elif x < 0.88:
        s = ""
    elif x < 0.94:
        s = "  " + word_for(prog) + r.choice((" ", "!", "  ", "?")) + word_for(prog) + " "
    else:
        s = r.choice(("hello, world", "a-b-c", "12 apples", "x=1;y=2", "Hello World",
                      "aAbBcC", "racecar", "Mississippi", "banana", "  spaces  "))
    if len(s) > 40:
        s = s[:40]
    return s


def arg_list_int(prog):
    r = prog.r
    x = r.random()
    n = 0 if x < 0.06 else r.randint(1, 8)
    out = []
    for _ in range(n):
        if prog.int_lits and r.random() < 0.15:
            v = r.choice(prog.int_lits)
            out.append(v if v <= 30 else r.randint(0, 9))
        elif r.random() < 0.12:
            out.append(-r.randint(1, 9))
        else:
            out.append(r.randint(0, 20) if r.random() < 0.4 else r.randint(0, 9))
    if out and r.random() < 0.15:
        out.sort()
    return out


def arg_list_str(prog):
    r = prog.r
    n = 0 if r.random() < 0.06 else r.randint(1, 6)
    return [word_for(prog) for _ in range(n)]


def arg_dict(prog):
    r = prog.r
    n = 0 if r.random() < 0.08 else r.randint(1, 5)
    d = {}
    for _ in range(n):
        d[word_for(prog).lower()] = r.randint(0, 10) if r.random() < 0.85 else -r.randint(1, 5)
    return d


def arg_value_text(prog, p):
    t = p.t
    if t == INT:
        return repr(arg_int(prog, p.hint))
    if t == STR:
        return repr(arg_str(prog, p.hint))
    if t == LI:
        return repr(arg_list_int(prog))
    if t == LS:
        return repr(arg_list_str(prog))
    if t == DSI:
        return repr(arg_dict(prog))
    if t == BOOL:
        return repr(prog.r.random() < 0.5)
    if t == SI:
        vals = sorted(set(arg_list_int(prog)))
        return "{%s}" % ", ".join(map(str, vals)) if vals else "set()"
    return "[]"


def make_calls(prog):
    r = prog.r
    name, params = prog.entry
    n = r.randint(2, 4)
    calls = []
    seen = set()
    for _ in range(n * 3):
        if len(calls) >= n:
            break
        if [p.hint for p in params] == ["bsearch"] * 4 or (
                len(params) == 4 and params[0].t == LI and params[2].t == INT):
            xs = sorted(set(arg_list_int(prog)))
            target = r.choice(xs) if xs and r.random() < 0.6 else r.randint(0, 20)
            args = [repr(xs), repr(target), "0", repr(len(xs) - 1)]
        else:
            args = [arg_value_text(prog, p) for p in params]
        call = "%s(%s)" % (name, ", ".join(args))
        if call in seen:
            continue
        seen.add(call)
        calls.append(call)
    return calls


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def generate(count, seed, first_id=0):
    """Yield (id, source, calls, family) for programs first_id .. first_id+count-1."""
    for k in range(first_id, first_id + count):
        rng = random.Random("%d:%d" % (seed, k))
        source, calls, family = build_program(rng)
        yield "gen-%d-%06d" % (seed, k), source, calls, family


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", default="-")
    ap.add_argument("--first-id", type=int, default=0)
    args = ap.parse_args(argv)
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8", newline="\n")
    try:
        for pid, source, calls, family in generate(args.count, args.seed, args.first_id):
            out.write(json.dumps({"id": pid, "source": source, "calls": calls,
                                  "family": family}) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
        else:
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
