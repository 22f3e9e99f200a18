#!/usr/bin/env python3
"""Keep CruxEval out of the training programs.

    python3 inference/training/cruxeval_guard.py --cruxeval PATH PROGRAMS.jsonl...

CruxEval is the measuring stick, never training data. This guard normalises
every training program and every CruxEval problem's code (parse, drop
docstrings, rename every function, parameter and local name canonically in
order of appearance, unparse) and fails, listing the offenders, when

  * a program's normalised source equals a problem's normalised code, or a
    function of the program equals a problem's function after normalisation;
  * a function of a program contains, as a run of consecutive top-level
    statements, the whole body of a problem's function (renamed canonically
    within that run on both sides). Bodies of a single one-line statement
    (`return x.upper()`) are only caught by the equality check: as a run
    inside a longer function they are everyday Python, not a copy.

The CruxEval file is only ever read from the path given on the command line
(or to `load_cruxeval`); nothing of it is stored anywhere. Standard library
only; programs are JSON lines with a "source" field (and an "id").
"""

import argparse
import ast
import json
import re
import sys

CANON = re.compile(r"(?<![\w.])_(\d+)\b")


def drop_docstrings(tree):
    """Removes every docstring of a parsed tree in place (code_corpus.py uses it too)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            _strip_doc(node.body)


def _bound_names(tree):
    """Every name the code binds: defs, classes, parameters, assignment and
    loop targets, comprehension variables, exception names, global/nonlocal."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return bound


def _rename(tree, bound):
    """Rename the bound names to _0, _1, ... in order of appearance (fields
    are visited in source order), in place."""
    mapping = {}

    def canon(name):
        if name not in bound:
            return name
        got = mapping.get(name)
        if got is None:
            got = mapping[name] = "_%d" % len(mapping)
        return got

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            node.name = canon(node.name)
        elif isinstance(node, ast.arg):
            node.arg = canon(node.arg)
        elif isinstance(node, ast.Name):
            node.id = canon(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            node.name = canon(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            node.names = [canon(n) for n in node.names]
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        visit(item)
            elif isinstance(value, ast.AST):
                visit(value)

    visit(tree)
    return tree


def _collapse(source):
    return " ".join(source.split())


def normalise(source):
    """The canonical text of `source`: docstrings dropped, every function,
    parameter and local name renamed in order of appearance, unparsed. Falls
    back to the whitespace-collapsed text when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return _collapse(source)
    drop_docstrings(tree)
    _rename(tree, _bound_names(tree))
    return ast.unparse(tree)


def _strip_doc(body):
    if body and isinstance(body[0], ast.Expr) and isinstance(
            getattr(body[0], "value", None), ast.Constant) and isinstance(
            body[0].value.value, str):
        del body[0]
        if not body:
            body.append(ast.Pass())


def _top_functions(tree):
    """The module's functions (top level and methods), docstrings dropped."""
    _strip_doc(tree.body)
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(node)
        elif isinstance(node, ast.ClassDef):
            _strip_doc(node.body)
            out.extend(n for n in node.body if isinstance(n, (ast.FunctionDef,
                                                               ast.AsyncFunctionDef)))
    for node in out:
        _strip_doc(node.body)
    return out


def _nargs(func):
    a = func.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (
        a.kwarg is not None)


def _module_sig(tree):
    """A cheap structural fingerprint: equal normalised code implies equal fingerprints."""
    sig = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            sig.append(("def", _nargs(node), tuple(_stmt_sig(stmt) for stmt in node.body)))
        else:
            sig.append(type(node).__name__)
    return tuple(sig)


def _stmt_sig(stmt):
    """A cheap fingerprint of a statement, unchanged by renaming."""
    value = getattr(stmt, "value", None)
    test = getattr(stmt, "test", None) or getattr(stmt, "iter", None)
    call = value.func if isinstance(value, ast.Call) else None
    return (type(stmt).__name__, type(value).__name__, type(test).__name__,
            len(getattr(stmt, "body", ())), len(getattr(stmt, "orelse", ())),
            call.attr if isinstance(call, ast.Attribute) else type(call).__name__)


def _func_key(func, stmts):
    return "%s(%s)\n%s" % (func.name, ast.unparse(func.args), "\n".join(stmts))


def _recanon(text):
    """Rename the canonical _N names of `text` again in order of appearance
    (a run of statements cut out of a function is renamed on its own)."""
    mapping = {}

    def repl(m):
        got = mapping.get(m.group(1))
        if got is None:
            got = mapping[m.group(1)] = "_%d" % len(mapping)
        return got

    return CANON.sub(repl, text)


class CruxIndex(object):
    """What the guard compares against, built from CruxEval's code fields.

    Every comparison is first filtered by a structural fingerprint taken from
    the syntax tree (statement kinds and counts), so that only candidates
    are unparsed: checking a program costs about a parse."""

    def __init__(self):
        self.codes = {}  # normalised code -> problem id
        self.code_sigs = set()
        self.functions = {}  # normalised function -> problem id
        self.func_sigs = set()  # (arg count, statement kinds)
        self.bodies = {}  # statement count -> {normalised run of statements: problem id}
        self.body_sigs = {}  # statement count -> set of statement kind tuples

    def add(self, code, pid):
        self.codes.setdefault(normalise(code), pid)
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            return
        funcs = _top_functions(tree)
        self.code_sigs.add(_module_sig(tree))
        for func in funcs:
            _rename(func, _bound_names(func))
            stmts = [ast.unparse(stmt) for stmt in func.body]
            kinds = tuple(_stmt_sig(stmt) for stmt in func.body)
            self.functions.setdefault(_func_key(func, stmts), pid)
            self.func_sigs.add((_nargs(func), kinds))
            body = _recanon("\n".join(stmts))
            if "\n" not in body:
                continue  # a single one-line statement: equality only
            n = len(stmts)
            self.bodies.setdefault(n, {}).setdefault(body, pid)
            self.body_sigs.setdefault(n, set()).add(kinds)

    def __len__(self):
        return len(self.codes)

    def check(self, source):
        """(kind, problem id) of the first match of `source`, else None."""
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            pid = self.codes.get(_collapse(source))
            return ("equal", pid) if pid is not None else None
        funcs = _top_functions(tree)
        if _module_sig(tree) in self.code_sigs:
            pid = self.codes.get(normalise(source))
            if pid is not None:
                return "equal", pid
        for func in funcs:
            kinds = tuple(_stmt_sig(stmt) for stmt in func.body)
            whole = (_nargs(func), kinds) in self.func_sigs
            runs = []
            for n, sigs in self.body_sigs.items():
                for i in range(len(kinds) - n + 1):
                    if kinds[i:i + n] in sigs:
                        runs.append((i, n))
            if not whole and not runs:
                continue
            _rename(func, _bound_names(func))
            stmts = [None] * len(func.body)

            def text(i):
                if stmts[i] is None:
                    stmts[i] = ast.unparse(func.body[i])
                return stmts[i]

            if whole:
                pid = self.functions.get(_func_key(func, [text(i) for i in range(len(kinds))]))
                if pid is not None:
                    return "equal-function", pid
            for i, n in runs:
                pid = self.bodies[n].get(_recanon("\n".join(text(j) for j in range(i, i + n))))
                if pid is not None:
                    return "contains-body", pid
        return None


def load_cruxeval(path):
    """The set of normalised codes of the CruxEval JSON lines file at `path`."""
    return set(load_index(path).codes)


def load_index(path):
    index = CruxIndex()
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            line = line.strip()
            if not line:
                continue
            row = json.loads(line)
            index.add(row["code"], str(row.get("id", "line %d" % (n + 1))))
    return index


def iter_programs(paths):
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                line = line.strip()
                if line:
                    row = json.loads(line)
                    yield row.get("id", "%s:%d" % (path, n + 1)), row["source"]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Fail when a training program matches CruxEval.")
    ap.add_argument("--cruxeval", required=True, help="CruxEval JSON lines (a 'code' field)")
    ap.add_argument("programs", nargs="+", help="program JSON lines (a 'source' field)")
    args = ap.parse_args(argv)
    index = load_index(args.cruxeval)
    checked = 0
    bad = []
    for pid, source in iter_programs(args.programs):
        checked += 1
        hit = index.check(source)
        if hit is not None:
            bad.append((pid, hit))
    if bad:
        for pid, (kind, cid) in bad:
            print("%s: %s CruxEval problem %s" % (pid, kind, cid))
        print("cruxeval guard: %d of %d programs match CruxEval (%d problems)"
              % (len(bad), checked, len(index)), file=sys.stderr)
        return 1
    print("cruxeval guard: %d programs checked against %d CruxEval problems: no match"
          % (checked, len(index)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
