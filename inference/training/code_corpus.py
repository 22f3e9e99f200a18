"""Real code with its own inputs, as a corpus for `ndb data generate --corpus`.

Reads Python source trees (the standard library of the interpreter that runs
this script, with its own test suite; installed packages, such as the MIT
licensed exercise set `algorithms` from PyPI) and writes one program per
function that can stand alone, as JSON lines in the format of `programs.py`:

    {"id": "stdlib:textwrap.dedent", "source": "...", "calls": ["dedent('  a')"],
     "family": "stdlib"}

- **The function and what it needs.** A top-level function is kept when every
  name it reads resolves to a builtin, an import of its module, or another
  top-level function, class or assignment of its module whose own names
  resolve the same way (found with `symtable`, so nested scopes are exact).
  The program is those pieces in their original order; relative imports and
  star imports make a function ineligible.
- **Its own inputs.** Entry calls are the calls to the function whose
  arguments are all literals (`ast.literal_eval`), found in doctest examples
  anywhere in the tree and in the code itself, tests included (`self.assertEqual(
  textwrap.dedent("  a"), "a")` gives `dedent('  a')`). `--variants K` adds up
  to K calls per found call with the literals perturbed (numbers moved, strings
  and lists shuffled or cut), so the same code is run on inputs its authors did
  not write down.

Nothing is run here; `ndb data generate` traces each call in a bounded child
process and drops (and counts) what fails. Deterministic for a seed. The
corpus is made on the fly from installed code; none of it is committed.

    python3 inference/training/code_corpus.py --stdlib --package algorithms \
        --variants 2 --seed 1 > real.jsonl
"""

from __future__ import annotations

import argparse
import ast
import builtins
import doctest
import hashlib
import importlib.util
import json
import os
import random
import sys
import symtable
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cruxeval_guard  # noqa: E402  (beside this script)

BUILTINS = set(dir(builtins)) | {"__name__", "__file__", "__doc__"}
MAX_SOURCE_LINES = 80
MAX_SOURCE_CHARS = 4000
MAX_CALL_CHARS = 300
MAX_CALLS = 6
# Standard-library folders that are not everyday code or cannot stand alone.
SKIP_DIRS = {
    "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip", "venv",
    "site-packages", "distutils", "msilib", "pydoc_data", "__pycache__",
    "asyncio", "multiprocessing", "concurrent", "xmlrpc", "wsgiref",
}
# Folders whose code is read for calls only: their own functions are test
# helpers, not programs.
CALLS_ONLY_DIRS = {"test", "tests", "testing"}
# Function names that touch the outside world; such calls are not kept.
UNSAFE_WORDS = ("remove", "unlink", "rmtree", "kill", "system", "spawn", "fork",
                "exec", "write", "mkdir", "rename", "chmod", "chown", "socket",
                "sleep", "input", "exit", "open", "urlopen")
# A program that imports one of these, or calls one of these builtins, could
# touch files, processes, the network or the interpreter: it is left out,
# since the tracer bounds time, memory and output but not side effects.
UNSAFE_MODULES = {
    "shutil", "subprocess", "tempfile", "socket", "ctypes", "signal", "threading",
    "_thread", "multiprocessing", "concurrent", "asyncio", "webbrowser", "urllib",
    "http", "ftplib", "smtplib", "poplib", "imaplib", "sqlite3", "dbm", "shelve",
    "zipfile", "tarfile", "gzip", "bz2", "lzma", "glob", "pathlib", "fileinput",
    "pty", "fcntl", "mmap", "select", "selectors", "importlib", "pkgutil", "site",
    "sysconfig", "platform", "logging", "gettext", "locale", "io", "codecs",
    "tkinter", "curses", "readline", "resource", "gc", "atexit", "builtins",
    "runpy", "zipimport", "code", "pdb", "trace", "faulthandler", "unittest", "test",
}
UNSAFE_BUILTINS = {"open", "exec", "eval", "compile", "__import__", "input",
                   "breakpoint", "exit", "quit", "globals", "vars", "help"}
# Attributes of `os` (and `sys`) a program may read; any other makes it unsafe.
SAFE_ATTRIBUTES = {
    "os": {"path", "sep", "altsep", "extsep", "pathsep", "curdir", "pardir",
           "linesep", "name", "fspath", "fsencode", "fsdecode", "PathLike"},
    "sys": {"maxsize", "maxunicode", "byteorder", "version_info", "hexversion",
            "float_info", "int_info", "implementation", "getrecursionlimit",
            "intern", "platform"},
}


@dataclass
class Unit:
    """One top-level statement of a module that a program may need."""
    node: ast.stmt
    names: set[str]          # names it binds
    needs: set[str]          # module-level names it reads
    ok: bool = True          # False: reads something that cannot come along


@dataclass
class Module:
    name: str                # dotted name, e.g. "textwrap" or "algorithms.string.add_binary"
    path: Path
    source: str
    tree: ast.Module
    units: list[Unit] = field(default_factory=list)
    by_name: dict[str, int] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    calls_only: bool = False  # a test module: read for calls, never a program


def module_symbols(source: str, path: Path) -> dict[str, set[str]]:
    """For each top-level function or class: the global names it (or any
    scope nested in it) reads."""
    table = symtable.symtable(source, str(path), "exec")
    out: dict[str, set[str]] = {}

    def globals_of(t: symtable.SymbolTable, acc: set[str]) -> None:
        for sym in t.get_symbols():
            if sym.is_referenced() and (sym.is_global() or sym.is_declared_global()):
                acc.add(sym.get_name())
            # A class body reads its free names from the module too.
            if t.get_type() == "class" and sym.is_referenced() and not sym.is_assigned() \
                    and not sym.is_parameter() and not sym.is_free():
                acc.add(sym.get_name())
        for child in t.get_children():
            globals_of(child, acc)

    for child in table.get_children():
        acc: set[str] = set()
        globals_of(child, acc)
        out.setdefault(child.get_name(), set()).update(acc)
    return out


def names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def load_module(name: str, path: Path) -> Module | None:
    try:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, str(path))
        scopes = module_symbols(source, path)
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError):
        return None
    module = Module(name, path, source, tree)
    for stmt in tree.body:
        unit = Unit(stmt, set(), set())
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            unit.names = {stmt.name}
            unit.needs = set(scopes.get(stmt.name, set()))
            unit.needs |= set().union(*(names_read(d) for d in stmt.decorator_list)) \
                if stmt.decorator_list else set()
            if isinstance(stmt, ast.ClassDef):
                unit.needs |= set().union(*(names_read(b) for b in stmt.bases)) \
                    if stmt.bases else set()
            else:
                module.functions[stmt.name] = stmt
                defaults = stmt.args.defaults + [d for d in stmt.args.kw_defaults if d]
                for default in defaults:
                    unit.needs |= names_read(default)
        elif isinstance(stmt, ast.Import):
            unit.names = {(a.asname or a.name).split(".")[0] for a in stmt.names}
        elif isinstance(stmt, ast.ImportFrom):
            if stmt.level or any(a.name == "*" for a in stmt.names):
                unit.ok = False
            unit.names = {a.asname or a.name for a in stmt.names}
            if stmt.module == "__future__":
                unit.names = set()
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and not _has_call_with_effects(stmt):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        unit.names.add(n.id)
                    elif not isinstance(n, (ast.Tuple, ast.List, ast.Store, ast.Starred)):
                        unit.ok = False
            if stmt.value is not None:
                unit.needs = names_read(stmt.value)
        else:
            continue
        index = len(module.units)
        module.units.append(unit)
        for n in unit.names:
            module.by_name[n] = index          # the last binding wins, as at run time
    return module


def _has_call_with_effects(stmt: ast.stmt) -> bool:
    for n in ast.walk(stmt):
        if isinstance(n, ast.Call):
            text = ast.unparse(n.func)
            if any(w in text.lower() for w in UNSAFE_WORDS):
                return True
    return False


def closure(module: Module, function: str) -> list[int] | None:
    """The units a top-level function needs, or None when one of its names
    cannot come along."""
    start = module.by_name.get(function)
    if start is None:
        return None
    chosen: set[int] = set()
    todo = [start]
    while todo:
        index = todo.pop()
        if index in chosen:
            continue
        unit = module.units[index]
        if not unit.ok:
            return None
        chosen.add(index)
        for name in unit.needs:
            if name in module.by_name:
                todo.append(module.by_name[name])
            elif name not in BUILTINS:
                return None
    future = [i for i, u in enumerate(module.units)
              if isinstance(u.node, ast.ImportFrom) and u.node.module == "__future__"]
    return sorted(chosen | set(future))


def is_safe(node: ast.stmt) -> bool:
    """Whether a statement stays inside the interpreter: no unsafe module, no
    unsafe builtin, only the listed attributes of `os` and `sys`."""
    for n in ast.walk(node):
        if isinstance(n, ast.Import):
            if any(a.name.split(".")[0] in UNSAFE_MODULES for a in n.names):
                return False
        elif isinstance(n, ast.ImportFrom):
            if (n.module or "").split(".")[0] in UNSAFE_MODULES:
                return False
            if n.module in SAFE_ATTRIBUTES and any(a.name not in SAFE_ATTRIBUTES[n.module] for a in n.names):
                return False
        elif isinstance(n, ast.Name) and n.id in UNSAFE_BUILTINS:
            return False
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) \
                and n.value.id in SAFE_ATTRIBUTES and n.attr not in SAFE_ATTRIBUTES[n.value.id]:
            return False
        elif isinstance(n, ast.Attribute) and n.attr.startswith("__") and n.attr not in ("__name__", "__class__"):
            return False
    return True


def is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def literal_calls(tree: ast.AST, resolve) -> list[tuple[str, str, ast.Call]]:
    """`(module, function, call)` for each call in `tree` whose arguments are
    all literals and whose callee `resolve(func_node)` names."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        target = resolve(node.func)
        if target is None:
            continue
        args = list(node.args) + [k.value for k in node.keywords]
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            continue
        if all(is_literal(a) for a in args):
            found.append((target[0], target[1], node))
    return found


def doctest_trees(module: Module) -> list[ast.AST]:
    """The parsed `>>>` examples of every docstring in a module."""
    parser = doctest.DocTestParser()
    trees = []
    for node in ast.walk(module.tree):
        if not isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        doc = ast.get_docstring(node, clean=True)
        if not doc or ">>>" not in doc:
            continue
        try:
            examples = parser.get_examples(doc)
        except ValueError:
            continue
        for example in examples:
            try:
                trees.append(ast.parse(example.source))
            except SyntaxError:
                pass
    return trees


def import_base(module: Module, node: ast.ImportFrom) -> str:
    """The absolute name of the module an `ImportFrom` in `module` names,
    relative levels resolved."""
    base = node.module or ""
    if not node.level:
        return base
    anchor = module.name if module.path.name == "__init__.py" else module.name.rpartition(".")[0]
    for _ in range(node.level - 1):
        anchor = anchor.rpartition(".")[0]
    return ".".join(part for part in (anchor, base) if part)


class Corpus:
    def __init__(self, family: str):
        self.family = family
        self.modules: dict[str, Module] = {}
        self.calls: dict[tuple[str, str], list[str]] = {}

    def add_tree(self, root: Path, prefix: str = "", skip=SKIP_DIRS) -> None:
        """Reads every module under `root` (its dotted names under `prefix`)."""
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in skip and not d.startswith("."))
            for filename in sorted(filenames):
                if not filename.endswith(".py"):
                    continue
                path = Path(dirpath) / filename
                parts = list(path.relative_to(root).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                name = ".".join(([prefix] if prefix else []) + parts) or prefix
                module = load_module(name, path)
                if module is not None:
                    module.calls_only = bool(CALLS_ONLY_DIRS & set(path.relative_to(root).parts[:-1])) \
                        or path.name.startswith("test_")
                    self.modules[name] = module

    def collect_calls(self) -> None:
        for module in self.modules.values():
            imports = self._imports(module)

            def resolve(func, module=module, imports=imports):
                if isinstance(func, ast.Name):
                    if func.id in module.functions:
                        return module.name, func.id
                    return imports.get(func.id)
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                    target = imports.get(func.value.id)
                    if target and target[1] is None and func.attr in self.modules[target[0]].functions:
                        return target[0], func.attr
                return None

            trees = [module.tree] + doctest_trees(module)
            for tree in trees:
                for target_module, function, call in literal_calls(tree, resolve):
                    if function is None:
                        continue
                    if not call.args and not call.keywords:
                        continue
                    text = ast.unparse(ast.Call(ast.Name(function, ast.Load()), call.args, call.keywords))
                    if len(text) <= MAX_CALL_CHARS:
                        calls = self.calls.setdefault((target_module, function), [])
                        if text not in calls:
                            calls.append(text)

    def _imports(self, module: Module) -> dict[str, tuple[str, str | None]]:
        """Local name -> (module, function or None for the module itself),
        for imports of modules of this corpus."""
        out: dict[str, tuple[str, str | None]] = {}
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in self.modules:
                        if alias.asname:
                            out[alias.asname] = (alias.name, None)
                        elif "." not in alias.name:
                            out[alias.name] = (alias.name, None)
            elif isinstance(node, ast.ImportFrom):
                base = import_base(module, node)
                for alias in node.names:
                    local = alias.asname or alias.name
                    sub = f"{base}.{alias.name}" if base else alias.name
                    if sub in self.modules:
                        out[local] = (sub, None)
                    elif base in self.modules and alias.name in self.modules[base].functions:
                        out[local] = (base, alias.name)
                    elif base in self.modules:
                        # Re-exported from a package's __init__: follow one hop.
                        hop = self._imports_shallow(self.modules[base]).get(alias.name)
                        if hop:
                            out[local] = hop
        return out

    def _imports_shallow(self, module: Module) -> dict[str, tuple[str, str]]:
        out = {}
        for node in module.tree.body:
            if isinstance(node, ast.ImportFrom):
                base = import_base(module, node)
                for alias in node.names:
                    if base in self.modules and alias.name in self.modules[base].functions:
                        out[alias.asname or alias.name] = (base, alias.name)
        return out

    def programs(self, variants: int, seed: int):
        for (module_name, function), calls in sorted(self.calls.items()):
            module = self.modules[module_name]
            if module.calls_only or function.startswith("test") \
                    or any(w in function.lower() for w in UNSAFE_WORDS):
                continue
            units = closure(module, function)
            if units is None or not all(is_safe(module.units[i].node) for i in units):
                continue
            source = "\n\n".join(strip_docstrings(module.units[i].node) for i in units) + "\n"
            if source.count("\n") > MAX_SOURCE_LINES or len(source) > MAX_SOURCE_CHARS:
                continue
            ident = f"{self.family}:{module_name}.{function}"
            rng = random.Random(int(hashlib.sha256(f"{seed}:{ident}".encode()).hexdigest()[:16], 16))
            chosen = list(calls[:MAX_CALLS])
            for call in calls[:MAX_CALLS]:
                for _ in range(variants):
                    variant = perturb_call(call, rng)
                    if variant and variant not in chosen and len(variant) <= MAX_CALL_CHARS:
                        chosen.append(variant)
            yield {"id": ident, "source": source, "calls": chosen, "family": self.family}


def strip_docstrings(node: ast.stmt) -> str:
    """The statement's source without docstrings (they hold the doctests,
    which would spell out the answers)."""
    tree = ast.parse(ast.unparse(node))
    cruxeval_guard.drop_docstrings(tree)
    return ast.unparse(tree.body[0])


def perturb(value, rng: random.Random, depth: int = 0):
    """A value of the same shape with some of its literals moved."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value + rng.choice([-2, -1, 1, 2, 3]) if abs(value) < 1000 else value // rng.choice([2, 3])
    if isinstance(value, float):
        return round(value * rng.choice([0.5, 1.5, 2.0]) + rng.choice([-1, 0, 1]), 3)
    if isinstance(value, str):
        if len(value) < 2:
            return value + rng.choice("abcxyz0 ")
        chars = list(value)
        op = rng.randrange(3)
        if op == 0:
            rng.shuffle(chars)
        elif op == 1:
            del chars[rng.randrange(len(chars))]
        else:
            chars.insert(rng.randrange(len(chars) + 1), rng.choice(chars))
        return "".join(chars)
    if isinstance(value, (list, tuple)):
        items = [perturb(v, rng, depth + 1) if depth < 3 and rng.random() < 0.5 else v for v in value]
        if items and rng.random() < 0.5:
            rng.shuffle(items)
        if len(items) > 1 and rng.random() < 0.3:
            del items[rng.randrange(len(items))]
        return type(value)(items)
    if isinstance(value, dict):
        return {k: (perturb(v, rng, depth + 1) if rng.random() < 0.5 else v) for k, v in value.items()}
    return value


def literal(value) -> str:
    """`repr` of a literal value, with set elements sorted: a set's own
    order follows string hashing, which changes with every interpreter."""
    if isinstance(value, (set, frozenset)) and value:
        items = "{" + ", ".join(sorted(literal(v) for v in value)) + "}"
        return items if isinstance(value, set) else f"frozenset({items})"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def perturb_call(call: str, rng: random.Random) -> str | None:
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call)
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if not args and not kwargs:
        return None
    which = rng.randrange(len(args) + len(kwargs))
    if which < len(args):
        args[which] = perturb(args[which], rng)
    else:
        key = list(kwargs)[which - len(args)]
        kwargs[key] = perturb(kwargs[key], rng)
    parts = [literal(a) for a in args] + [f"{k}={literal(v)}" for k, v in kwargs.items()]
    return f"{ast.unparse(node.func)}({', '.join(parts)})"


def package_root(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"code_corpus: no installed package named {name!r} "
                 f"(pip install {name})")
    return Path(list(spec.submodule_search_locations)[0])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stdlib", action="store_true",
                        help="the standard library of this interpreter, with its tests")
    parser.add_argument("--package", action="append", default=[],
                        help="an installed package (repeatable), e.g. algorithms")
    parser.add_argument("--dir", action="append", default=[], type=Path,
                        help="a source folder (repeatable)")
    parser.add_argument("--variants", type=int, default=2,
                        help="perturbed calls added per found call")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--guard", type=Path,
                        help="CruxEval JSON lines: drop any program that matches one (cruxeval_guard.py)")
    args = parser.parse_args(argv)
    corpora: list[Corpus] = []
    if args.stdlib:
        corpus = Corpus("stdlib")
        corpus.add_tree(Path(sysconfig.get_paths()["stdlib"]))
        corpora.append(corpus)
    for name in args.package:
        corpus = Corpus(name)
        corpus.add_tree(package_root(name), prefix=name)
        corpora.append(corpus)
    for folder in args.dir:
        corpus = Corpus(folder.name)
        corpus.add_tree(folder)
        corpora.append(corpus)
    if not corpora:
        parser.error("name at least one of --stdlib, --package, --dir")
    guard = None
    if args.guard:
        guard = cruxeval_guard.load_index(args.guard)
    counts = {"programs": 0, "calls": 0, "guarded": 0}
    for corpus in corpora:
        corpus.collect_calls()
        for program in corpus.programs(args.variants, args.seed):
            if guard is not None and guard.check(program["source"]) is not None:
                counts["guarded"] += 1
                continue
            counts["programs"] += 1
            counts["calls"] += len(program["calls"])
            print(json.dumps(program, ensure_ascii=False))
    print(f"code_corpus: {counts['programs']} programs, {counts['calls']} calls"
          + (f", {counts['guarded']} dropped by the CruxEval guard" if guard else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
