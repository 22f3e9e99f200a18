"""The ndb tracer: runs one entry call of a Python file under sys.settrace and
writes every call, line, return and exception event of that file's frames as
one JSON line to the protocol channel (the process's original stdout).

Run as a script (the Rust side runs `python -B -c <this text> ARGS`):

    python3 ndb_tracer.py --file PATH --call EXPR [--max-events N]
        [--time-limit SECONDS] [--memory-limit BYTES] [--max-stdout BYTES]
        [--max-repr CHARS] [--max-items N]
    python3 ndb_tracer.py --bind --file PATH --call EXPR [--max-repr CHARS]
        [--max-items N] [--memory-limit BYTES]
    python3 ndb_tracer.py --self-test

Protocol, one JSON object per line, in this order:
    {"type": "ready", "python": "3.11.7"}        the script started
    {"type": "error", "kind": "syntax"|"entry"|"load"|"internal", "message": ...}
                                                   setup failed (exit code 2)
    {"type": "start"}                               tracing starts
    {"type": "event", ...}                          one per event
    {"type": "exit", "status": ..., "value": ..., "reason": ..., "stdout": ...}

With `--bind` nothing of the file runs (see `bind_entry_call`): after `ready`
comes either the same `error` line or one
    {"type": "binding", "function": ..., "line": ..., "locals": [[name, repr], ...]}
the entry call's `call` state as the tracer's first event would show it.

Importing this file has no side effects: the pdb comparison harness imports
`bounded_repr`, `load_target`, `parse_entry_call`, `is_target_frame` and
`TargetError` from it. It must stay valid Python 3.8.
"""

import ast
import io
import json
import keyword
import os
import platform
import re
import sys
import threading
import time
import types

__all__ = [
    "TargetError",
    "bounded_repr",
    "load_target",
    "parse_entry_call",
    "is_target_frame",
    "bind_entry_call",
    "main",
]

CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ASYNC_GENERATOR = 0x200
GENERATOR_FLAGS = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR

# Containers nested deeper than this print as `[...]`, `{...}`, `(...)`.
MAX_REPR_DEPTH = 6
# The whole text of one value stops growing after max_chars times this: later
# items of the containers being printed collapse into their `...<+N>` marker.
TOTAL_REPR_FACTOR = 16

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class TargetError(Exception):
    """The target file or the entry call cannot be used. `kind` is "syntax",
    "entry" or "load"."""

    def __init__(self, message, kind="load"):
        Exception.__init__(self, message)
        self.kind = kind


# ---------------------------------------------------------------------------
# Bounded repr


class _Budget:
    """Characters still allowed for the whole value."""

    def __init__(self, total):
        self.left = total


def bounded_repr(value, max_chars=200, max_items=50):
    """`repr(value)`, bounded. Equal to `repr(value)` when no limit applies
    (except that object addresses read ` at 0x...`); never raises."""
    try:
        budget = _Budget(max(max_chars, 1) * TOTAL_REPR_FACTOR)
        return _repr(value, max_chars, max_items, 0, set(), budget)
    except BaseException as error:  # a repr may raise anything, even SystemExit
        return _failed(error)


def _failed(error):
    try:
        name = type(error).__name__
    except BaseException:
        name = "BaseException"
    return "<repr failed: %s>" % name


def _builtin_repr_of(value, base):
    return isinstance(value, base) and type(value).__repr__ is base.__repr__


def _repr(value, max_chars, max_items, depth, active, budget):
    kind = type(value)
    if _builtin_repr_of(value, list):
        return _repr_sequence(value, "[", "]", max_chars, max_items, depth, active, budget)
    if _builtin_repr_of(value, tuple):
        closing = ",)" if len(value) == 1 else ")"
        return _repr_sequence(value, "(", closing, max_chars, max_items, depth, active, budget)
    if _builtin_repr_of(value, dict):
        return _repr_dict(value, max_chars, max_items, depth, active, budget)
    if _builtin_repr_of(value, set) or _builtin_repr_of(value, frozenset):
        return _repr_set(value, max_chars, max_items, depth, active, budget)
    # Leaves: only they spend the budget (a container is the sum of its items).
    if kind is str or _builtin_repr_of(value, str):
        text = _repr_text(value, max_chars, "chars")
    elif kind is bytes or _builtin_repr_of(value, bytes):
        text = _repr_text(value, max_chars, "bytes")
    elif kind in (int, float, bool) or value is None:
        text = _cut(repr(value), max_chars)
    else:
        text = _cut(_ADDRESS.sub(" at 0x...", repr(value)), max_chars)
    budget.left -= len(text)
    return text


def _cut(text, max_chars):
    if len(text) <= max_chars:
        return text
    return "%s...<+%d chars>" % (text[:max_chars], len(text) - max_chars)


def _repr_text(value, max_chars, unit):
    if len(value) <= max_chars:
        return repr(value)
    return "%s...<+%d %s>" % (repr(value[:max_chars]), len(value) - max_chars, unit)


def _repr_items(items, length, render, max_items, budget):
    """The rendered items joined by ', ', with the `...<+N>` marker when
    items are left out (by count or by the budget)."""
    parts = []
    shown = 0
    for item in items:
        if shown >= max_items or budget.left <= 0:
            break
        parts.append(render(item))
        shown += 1
    if shown < length:
        parts.append("...<+%d>" % (length - shown))
    return ", ".join(parts)


def _repr_sequence(value, opening, closing, max_chars, max_items, depth, active, budget):
    if len(value) == 0:
        return opening + closing.lstrip(",")
    if id(value) in active or depth >= MAX_REPR_DEPTH:
        return opening + "..." + closing.lstrip(",")
    active.add(id(value))
    try:
        body = _repr_items(
            value,
            len(value),
            lambda item: _repr(item, max_chars, max_items, depth + 1, active, budget),
            max_items,
            budget,
        )
    finally:
        active.discard(id(value))
    if len(value) > 1 or body.startswith("...<+"):
        closing = closing.lstrip(",")
    return opening + body + closing


def _repr_dict(value, max_chars, max_items, depth, active, budget):
    if len(value) == 0:
        return "{}"
    if id(value) in active or depth >= MAX_REPR_DEPTH:
        return "{...}"
    active.add(id(value))
    try:

        def render(pair):
            key = _repr(pair[0], max_chars, max_items, depth + 1, active, budget)
            return key + ": " + _repr(pair[1], max_chars, max_items, depth + 1, active, budget)

        body = _repr_items(list(value.items()), len(value), render, max_items, budget)
    finally:
        active.discard(id(value))
    return "{" + body + "}"


def _repr_set(value, max_chars, max_items, depth, active, budget):
    kind = type(value)
    wrapped = kind is not set
    name = kind.__name__
    if len(value) == 0:
        return name + "()"
    if id(value) in active or depth >= MAX_REPR_DEPTH:
        return name + "(...)" if wrapped else "{...}"
    active.add(id(value))
    try:
        body = _repr_items(
            value,
            len(value),
            lambda item: _repr(item, max_chars, max_items, depth + 1, active, budget),
            max_items,
            budget,
        )
    finally:
        active.discard(id(value))
    text = "{" + body + "}"
    return name + "(" + text + ")" if wrapped else text


# ---------------------------------------------------------------------------
# Loading the target and the entry call


def load_target(path):
    """Run the file's top level as a module (not `__main__`) and return it."""
    path = os.path.abspath(path)
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError as error:
        raise TargetError("cannot read %s: %s" % (path, error.strerror or error), "load")
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise TargetError(
            "syntax error in %s line %s: %s" % (path, error.lineno, error.msg), "syntax"
        )
    except ValueError as error:  # null bytes in the source
        raise TargetError("syntax error in %s line 1: %s" % (path, error), "syntax")
    stem = os.path.splitext(os.path.basename(path))[0]
    usable = stem.isidentifier() and not keyword.iskeyword(stem)
    # A module this function loaded earlier from the same file is replaced,
    # so loading a file again (the pdb harness does, once per run) keeps the
    # same module name and therefore the same reprs.
    previous = sys.modules.get(stem)
    reloading = previous is not None and getattr(previous, "__file__", None) == path
    name = stem if usable and (stem not in sys.modules or reloading) else "__ndb_target__"
    module = types.ModuleType(name)
    module.__file__ = path
    try:
        import importlib.util

        module.__spec__ = importlib.util.spec_from_file_location(name, path)
        module.__loader__ = module.__spec__.loader
    except Exception:
        pass
    sys.modules[name] = module
    directory = os.path.dirname(path)
    if directory in sys.path:
        sys.path.remove(directory)
    sys.path.insert(0, directory)
    try:
        exec(code, module.__dict__)
    except BaseException as error:
        raise TargetError(
            "running the top level of %s raised %s" % (path, _describe_exception(error, path)),
            "load",
        )
    return module


def _describe_exception(error, path):
    """`ValueError('x') at line 3`: the innermost line of `path` in the
    traceback."""
    text = bounded_repr(error)
    traceback = getattr(error, "__traceback__", None)
    line = None
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == path:
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    return text if line is None else "%s at line %d" % (text, line)


def parse_entry_call(expr, namespace):
    """Evaluate the callee and every argument of the call expression `expr`
    in `namespace`; return (callable, args, kwargs)."""
    text = expr.strip()
    try:
        tree = ast.parse(text, "<entry call>", "eval")
    except SyntaxError as error:
        raise TargetError("entry call `%s` does not parse: %s" % (text, error.msg), "entry")
    call = tree.body
    if not isinstance(call, ast.Call):
        raise TargetError(
            "entry call `%s` is not a call expression such as `f(1, 2)`" % text, "entry"
        )

    def evaluate(node, what):
        expression = ast.Expression(body=node)
        ast.fix_missing_locations(expression)
        try:
            return eval(compile(expression, "<entry call>", "eval"), namespace)
        except NameError as error:
            raise TargetError("entry call `%s`: %s" % (text, error), "entry")
        except BaseException as error:
            raise TargetError(
                "entry call `%s`: evaluating %s raised %s" % (text, what, bounded_repr(error)),
                "entry",
            )

    function = evaluate(call.func, "the callee")
    if not callable(function):
        raise TargetError(
            "entry call `%s`: %s is not callable" % (text, bounded_repr(function)), "entry"
        )
    args = []
    for node in call.args:
        if isinstance(node, ast.Starred):
            args.extend(evaluate(node.value, "a *argument"))
        else:
            args.append(evaluate(node, "an argument"))
    kwargs = {}
    for keyword_node in call.keywords:
        if keyword_node.arg is None:
            mapping = evaluate(keyword_node.value, "a **argument")
            try:
                kwargs.update(mapping)
            except BaseException as error:
                raise TargetError(
                    "entry call `%s`: a **argument is not a mapping (%s)"
                    % (text, bounded_repr(error)),
                    "entry",
                )
        else:
            kwargs[keyword_node.arg] = evaluate(keyword_node.value, "an argument")
    return function, args, kwargs


_REALPATHS = {}


def _realpath(filename):
    known = _REALPATHS.get(filename)
    if known is None:
        known = os.path.realpath(filename)
        _REALPATHS[filename] = known
    return known


def is_target_frame(frame, path):
    """The frame runs code of the file `path`."""
    return _realpath(frame.f_code.co_filename) == _realpath(path)


# ---------------------------------------------------------------------------
# Binding the entry call without running anything (`--bind`)
#
# The neural debugger shows the entry call's first state, its `call` event,
# without running the user's file. The file is parsed and compiled (compiling
# runs nothing; it reports the same syntax errors as the tracer) but never
# executed. The callee is found in the syntax tree and every argument (and
# every default value used) must be a literal: constants, containers of
# literals, `-1`, `1+2j`, `*[...]` / `**{...}` of literals, and calls of the
# builtins `set`, `frozenset`, `dict`, `list`, `tuple` and `float` (as long as
# the file does not rebind those names). A checked expression is compiled
# and evaluated in a namespace holding only those builtins, exactly the way
# the tracer evaluates it, so values match the tracer's even where
# `ast.literal_eval` differs (the order of a set literal, constant folding).
#
# The locals are in CPython's `f_locals` order at the call event, read from
# the compiled code object: the positional parameters, the keyword-only
# ones, `*args`, `**kwargs`, then the free variable `__class__` of a method
# that uses `super()` or `__class__` (before 3.11, parameters captured by an
# inner function come last; see `_frame_locals_order`). Cell variables that
# are not parameters are still empty at the call event and are not shown.

_SAFE_CONSTRUCTORS = ("dict", "float", "frozenset", "list", "set", "tuple")
_NUMBER_TYPES = (int, float, complex)
# Decorators that leave the function's own frame the first one the call
# enters (functools' caches are written in C), spelled as in the source.
_TRANSPARENT_DECORATORS = {
    "functools.lru_cache": ("functools", None),
    "functools.cache": ("functools", None),
    "lru_cache": ("functools", "lru_cache"),
    "cache": ("functools", "cache"),
}
_METHOD_DECORATORS = ("staticmethod", "classmethod")
_CLASS_DECORATORS = {
    "dataclass": ("dataclasses", "dataclass"),
    "dataclasses.dataclass": ("dataclasses", None),
    "total_ordering": ("functools", "total_ordering"),
    "functools.total_ordering": ("functools", None),
}
_NOT_LITERAL_HINT = "predictions without running code need literal arguments"


class _NotLiteral(Exception):
    """The expression `node` is not a literal (`why`, when known)."""

    def __init__(self, node, why=None):
        Exception.__init__(self)
        self.node = node
        self.why = why


class _Shown(object):
    """Stands for a function or class of the file, which the binder does not
    create: its repr is the one the real object would have."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _class_shown(module_name, qualname):
    return _Shown("<class '%s.%s'>" % (module_name, qualname))


_IMMUTABLE_LEAVES = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis), _Shown)


def _is_immutable(value):
    """No code can change the repr of `value` (a function's never changes)."""
    if type(value) in (tuple, frozenset):
        return all(_is_immutable(item) for item in value)
    return type(value) in _IMMUTABLE_LEAVES or callable(value)


def _main_guard_skipper(tree):
    """A function telling whether a statement is `if __name__ == "__main__":`,
    whose body never runs when the tracer loads the file (its module is not
    `__main__`); it tells nothing when the file assigns `__name__`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "__name__" and not isinstance(node.ctx, ast.Load):
            return lambda statement: False
        if isinstance(node, ast.Global) and "__name__" in node.names:
            return lambda statement: False

    def is_guard(statement):
        if not isinstance(statement, ast.If) or not isinstance(statement.test, ast.Compare):
            return False
        test = statement.test
        if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
            return False
        sides = [test.left, test.comparators[0]]
        return any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides) and any(
            isinstance(side, ast.Constant) and side.value == "__main__" for side in sides
        )

    return is_guard


class _Scope(object):
    """The names bound in a module or class body, in source order: name ->
    [(node, direct)] where `direct` is whether the node is a statement of the
    body itself (not inside an `if`, `try`, loop...). The body of an
    `if __name__ == "__main__":` never runs and binds nothing."""

    def __init__(self, body, is_main_guard):
        self.bindings = {}
        self.star_imports = []  # `from m import *` lines
        self.is_main_guard = is_main_guard
        for statement in body:
            self._statement(statement, True)

    def _add(self, name, node, direct):
        self.bindings.setdefault(name, []).append((node, direct))

    def _statement(self, node, direct):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # Decorators, defaults and bases run in this scope; bodies do not.
            parts = list(node.decorator_list)
            if isinstance(node, ast.ClassDef):
                parts += list(node.bases) + [k.value for k in node.keywords]
            else:
                parts += list(node.args.defaults) + [d for d in node.args.kw_defaults if d]
            for part in parts:
                self._expression(part, node, False)
            self._add(node.name, node, direct)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    self.star_imports.append(node)
                else:
                    self._add((alias.asname or alias.name).split(".")[0], node, direct)
            return
        body_fields = ("body", "orelse", "finalbody", "handlers", "cases")
        if self.is_main_guard(node):
            for child in node.orelse:
                self._statement(child, False)
            return
        for field, value in ast.iter_fields(node):
            if field in body_fields and isinstance(value, list):
                for child in value:
                    if isinstance(child, ast.stmt):
                        self._statement(child, False)
                    else:  # an except handler or a match case
                        self._other(child, node)
            elif isinstance(value, list):
                for child in value:
                    if isinstance(child, ast.AST):
                        self._expression(child, node, direct)
            elif isinstance(value, ast.AST):
                self._expression(value, node, direct)

    def _other(self, node, statement):
        name = getattr(node, "name", None)
        if isinstance(name, str):
            self._add(name, statement, False)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self._statement(child, False)
            else:
                self._expression(child, statement, False)

    def _expression(self, node, statement, direct):
        """Names an expression (or pattern) of `statement` binds; `direct`:
        the statement is one of the body's own. Conservative: the targets of
        comprehensions count although they bind in their own scope, and only
        the plain targets of a direct assignment are direct."""
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
                plain = direct and isinstance(statement, (ast.Assign, ast.AnnAssign)) and (
                    child in getattr(statement, "targets", [getattr(statement, "target", None)])
                )
                self._add(child.id, statement, plain)
            elif type(child).__name__ in ("MatchAs", "MatchStar"):
                if getattr(child, "name", None):
                    self._add(child.name, statement, False)
            elif type(child).__name__ == "MatchMapping":
                if getattr(child, "rest", None):
                    self._add(child.rest, statement, False)

    def last(self, name):
        found = self.bindings.get(name)
        return found[-1] if found else None

    def is_free(self, name):
        """Nothing in this scope binds `name`."""
        return name not in self.bindings and not self.star_imports


def _global_names(tree):
    """Names some function declares `global` (it may rebind them)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            names.update(node.names)
    return names


def _module_code_names(tree, is_main_guard):
    """What the code that runs when the module loads (everything but the
    bodies of functions, lambdas and the `__main__` guard) reads: (names it
    loads, root names it calls, decorators included)."""
    loads = set()
    calls = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if is_main_guard(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                calls.add(_root_name(decorator))
            stack.extend(node.decorator_list)
            stack.extend(_default_parts(node.args))
            if node.returns is not None:
                stack.append(node.returns)
            continue
        if isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                calls.add(_root_name(decorator))
        if isinstance(node, ast.Lambda):
            stack.extend(_default_parts(node.args))
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads.add(node.id)
        elif isinstance(node, ast.Call):
            calls.add(_root_name(node.func))
        stack.extend(ast.iter_child_nodes(node))
    calls.discard(None)
    return loads, calls


def _default_parts(arguments):
    """The parts of a def's arguments that run when it is defined: defaults
    (a bare name used as a default is only bound, not read for a change) and
    annotations."""
    parts = []
    for default in list(arguments.defaults) + [d for d in arguments.kw_defaults if d]:
        if not isinstance(default, ast.Name):
            parts.append(default)
    every = list(getattr(arguments, "posonlyargs", [])) + list(arguments.args) + list(arguments.kwonlyargs)
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    parts.extend(a.annotation for a in every if a.annotation is not None)
    return parts


def _root_name(node):
    """`a` for `a`, `a.b`, `a(...)`, `a.b(...)(...)`; else None."""
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Name):
            return node.id
        else:
            return None


def _dotted(node):
    """`a.b.c` for a chain of names and attributes, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class _Binder(object):
    def __init__(self, tree, code, path, source_text, call_text):
        self.tree = tree
        self.code = code
        self.path = path
        self.source_text = source_text
        self.call_text = call_text
        self.is_main_guard = _main_guard_skipper(tree)
        self.module = _Scope(tree.body, self.is_main_guard)
        self.globals_declared = _global_names(tree)
        self.module_loads, self.module_calls = _module_code_names(tree, self.is_main_guard)
        self.names = {}  # module names resolved to values, for `literal`
        self.resolving = set()
        # Before the binder imports anything the tracer would not have.
        self.module_name = _module_name_for(path)

    # -- messages --------------------------------------------------------

    def fail(self, message):
        raise TargetError("entry call `%s`: %s" % (self.call_text, message), "entry")

    def segment(self, node, text):
        got = None
        try:
            got = ast.get_source_segment(text, node)
        except Exception:
            pass
        return got if got is not None else "..."

    # -- names of the module ---------------------------------------------

    def module_is_free(self, name):
        return self.module.is_free(name) and name not in self.globals_declared

    def imported_from(self, name, module_name, attribute):
        """`name` is bound only by `import module_name` (attribute None) or
        `from module_name import attribute [as name]`."""
        if name in self.globals_declared or self.module.star_imports:
            return False
        found = self.module.bindings.get(name)
        if not found:
            return False
        for node, _direct in found:
            if attribute is None:
                ok = isinstance(node, ast.Import) and any(
                    alias.name == module_name and (alias.asname or alias.name) == name
                    for alias in node.names
                )
            else:
                ok = isinstance(node, ast.ImportFrom) and node.module == module_name and any(
                    alias.name == attribute and (alias.asname or alias.name) == name
                    for alias in node.names
                )
            if not ok:
                return False
        return True

    def known_decorator(self, node, table):
        """The spelling of `node` (a decorator) in `table` when the names
        it uses really are that library's, else None."""
        target = node.func if isinstance(node, ast.Call) else node
        spelling = _dotted(target)
        if spelling not in table:
            return None
        module_name, attribute = table[spelling]
        if not self.imported_from(spelling.split(".")[0], module_name, attribute):
            return None
        return spelling

    # -- finding the callee ----------------------------------------------

    def find_callee(self, func):
        spelling = _dotted(func)
        if spelling is None:
            self.fail(
                "the callee `%s` is not a name such as `f` or `Class.method`"
                % self.segment(func, self.call_text)
            )
        parts = spelling.split(".")
        scope = self.module
        classes = []
        for index, name in enumerate(parts):
            where = "the file" if not classes else "class `%s`" % ".".join(c.name for c in classes)
            found = scope.last(name)
            if found is None or (not classes and name in self.globals_declared):
                if found is None and scope.star_imports:
                    self.fail("`%s` may come from `from ... import *`; only functions defined "
                              "in the file can be bound without running code" % name)
                if found is None:
                    self.fail("no function `%s` in %s" % (name, where))
                self.fail("`%s` is rebound by a `global` statement in a function; binding "
                          "it needs running code" % name)
            node, direct = found
            last_step = index == len(parts) - 1
            lambda_value = None
            if (
                last_step
                and not classes
                and isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Lambda)
            ):
                lambda_value = node.value
            wanted = (ast.FunctionDef, ast.AsyncFunctionDef) if last_step else (ast.ClassDef,)
            if last_step and isinstance(node, ast.ClassDef):
                self.fail(
                    "`%s` is a class: calling it runs `__init__` on a new object, and binding "
                    "that needs running code; call a function or `Class.method` instead" % name
                )
            if lambda_value is None and not isinstance(node, wanted):
                self.fail(
                    "`%s` is not a %s of %s (line %d binds it otherwise); binding it needs "
                    "running code" % (name, "def" if last_step else "class", where,
                                      getattr(node, "lineno", 0))
                )
            if not direct or scope.star_imports:
                self.fail(
                    "`%s` is defined conditionally (line %d); binding it needs running code"
                    % (name, node.lineno)
                )
            if last_step:
                return (lambda_value or node), classes
            for decorator in node.decorator_list:
                if self.known_decorator(decorator, _CLASS_DECORATORS) is None:
                    self.fail(
                        "class `%s` is decorated with `%s`, which may replace it; binding "
                        "needs running code" % (name, self.segment(decorator, self.source_text))
                    )
            if node.keywords:
                self.fail("class `%s` has a metaclass or class keywords; binding needs running "
                          "code" % name)
            classes.append(node)
            scope = _Scope(node.body, self.is_main_guard)
        raise AssertionError("unreachable")

    # -- literals ----------------------------------------------------------

    def check_literal(self, node, before=None, in_class=False):
        """Raise _NotLiteral unless `node` is a literal this binder evaluates.
        Names it reads are resolved into `self.names`; `before` is the line
        the file must have bound them before (for defaults: the def's line);
        `in_class`: names would be looked up in a class body first."""
        if isinstance(node, ast.Constant):
            return
        if isinstance(node, (ast.UnaryOp, ast.BinOp)):
            self.check_number(node)
            return
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for element in node.elts:
                element = element.value if isinstance(element, ast.Starred) else element
                self.check_literal(element, before, in_class)
            return
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if key is not None:
                    self.check_literal(key, before, in_class)
                self.check_literal(value, before, in_class)
            return
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _SAFE_CONSTRUCTORS
            and self.module_is_free(node.func.id)
        ):
            for argument in node.args:
                argument = argument.value if isinstance(argument, ast.Starred) else argument
                self.check_literal(argument, before, in_class)
            for keyword_node in node.keywords:
                self.check_literal(keyword_node.value, before, in_class)
            return
        if in_class and isinstance(node, (ast.Lambda, ast.Name)):
            raise _NotLiteral(node, "a method's defaults read the class body's names first")
        if isinstance(node, ast.Lambda):
            # Making a lambda runs only its defaults; its repr is
            # `<function <lambda> at 0x...>`.
            arguments = node.args
            for default in list(arguments.defaults) + [d for d in arguments.kw_defaults if d]:
                self.check_literal(default, before, in_class)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self.resolve(node, before)
            return
        raise _NotLiteral(node)

    def resolve(self, node, before):
        """Put the value of the module name `node` in `self.names`: a name
        the file binds once, at its top level, to a literal (a mutable one
        only when nothing at the top level reads it again or calls code of
        the file, which could change it), to a def without decorators or to a
        plain class."""
        name = node.id
        found = self.module.bindings.get(name)
        if not found:
            raise _NotLiteral(node, "the file does not bind `%s` at its top level" % name)
        if (
            len(found) != 1
            or not found[0][1]
            or name in self.globals_declared
            or self.module.star_imports
            or name in self.resolving
        ):
            raise _NotLiteral(
                node, "the file binds `%s` more than once, conditionally or by import" % name
            )
        binding = found[0][0]
        first_line = min([binding.lineno] + [d.lineno for d in getattr(binding, "decorator_list", [])])
        if before is not None and first_line >= before:
            raise _NotLiteral(node, "`%s` is bound after line %d" % (name, before))
        if name in self.names:
            return
        value_node = None
        if isinstance(binding, ast.Assign) and len(binding.targets) == 1:
            if isinstance(binding.targets[0], ast.Name):
                value_node = binding.value
        elif isinstance(binding, ast.AnnAssign) and binding.simple and binding.value is not None:
            value_node = binding.value
        if value_node is not None:
            self.resolving.add(name)
            try:
                self.check_literal(value_node, binding.lineno)
            finally:
                self.resolving.discard(name)
            try:
                value = self.evaluate(value_node)
            except BaseException as error:
                raise _NotLiteral(node, "evaluating `%s` raised %s" % (name, bounded_repr(error)))
            if not _is_immutable(value) and self.module_may_change(name):
                raise _NotLiteral(
                    node,
                    "`%s` is mutable and the file's top level reads it again or calls the "
                    "file's code, which may change it" % name,
                )
        elif isinstance(binding, (ast.FunctionDef, ast.AsyncFunctionDef)) and not binding.decorator_list:
            value = _Shown("<function %s at 0x...>" % name)
        elif isinstance(binding, ast.ClassDef) and self.plain_class(binding):
            value = _class_shown(self.module_name, name)
        else:
            raise _NotLiteral(
                node,
                "`%s` is not bound to a literal, a def without decorators or a plain class" % name,
            )
        self.names[name] = value

    def plain_class(self, node):
        """A class whose repr is `<class 'module.Name'>`: no metaclass, no
        decorator that may replace it, bases only builtin classes (`object`,
        `Exception`, ...) or plain classes of the file."""
        import builtins

        if node.keywords:
            return False
        for decorator in node.decorator_list:
            if self.known_decorator(decorator, _CLASS_DECORATORS) is None:
                return False
        for base in node.bases:
            if not isinstance(base, ast.Name):
                return False
            if self.module_is_free(base.id) and type(getattr(builtins, base.id, None)) is type:
                continue
            try:
                self.resolve(base, node.lineno)
            except _NotLiteral:
                return False
            shown = self.names.get(base.id)
            if not (isinstance(shown, _Shown) and shown.text.startswith("<class ")):
                return False
        return True

    def module_may_change(self, name):
        """The code run when the module loads reads `name` again or calls
        code of the file (which could change the value bound to it)."""
        return name in self.module_loads or self.module_runs_file_code()

    def module_runs_file_code(self):
        """The code run when the module loads calls something the file
        binds other than by an import (its functions, classes, objects)."""
        for called in self.module_calls:
            for binding, _direct in self.module.bindings.get(called, []):
                if not isinstance(binding, (ast.Import, ast.ImportFrom)):
                    return True
        return False

    def evaluate(self, node):
        """Evaluate a checked literal the way the tracer evaluates the entry
        call: compiled, in a namespace of the safe builtins and the names
        resolved so far."""
        import builtins

        namespace = {"__builtins__": {}}
        for name in _SAFE_CONSTRUCTORS:
            namespace[name] = getattr(builtins, name)
        namespace.update(self.names)
        expression = ast.Expression(body=node)
        ast.fix_missing_locations(expression)
        return eval(compile(expression, "<entry call>", "eval"), namespace)

    def check_number(self, node):
        if isinstance(node, ast.Constant) and type(node.value) in _NUMBER_TYPES + (bool,):
            return
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            self.check_number(node.operand)
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            self.check_number(node.left)
            self.check_number(node.right)
            return
        raise _NotLiteral(node)

    def literal(self, node, text, describe, before=None, in_class=False):
        """The value of the literal `node` (source in `text`); `describe` is
        how a message names it, such as "argument 1"."""
        try:
            self.check_literal(node, before, in_class)
        except _NotLiteral as problem:
            whole = self.segment(node, text)
            part = self.segment(problem.node, text)
            if problem.why is not None:
                detail = " (%s)" % problem.why
            else:
                detail = "" if part == whole else " (`%s` is not)" % part
            self.fail("%s `%s` is not a literal%s; %s" % (describe, whole, detail, _NOT_LITERAL_HINT))
        try:
            return self.evaluate(node)
        except BaseException as error:
            self.fail("evaluating %s `%s` raised %s" % (describe, self.segment(node, text),
                                                        bounded_repr(error)))

    # -- binding -----------------------------------------------------------

    def bind(self, call):
        function, classes = self.find_callee(call.func)
        is_lambda = isinstance(function, ast.Lambda)
        name = "<lambda>" if is_lambda else function.name
        decorators = [] if is_lambda else list(function.decorator_list)
        kind = None
        for decorator in decorators:
            spelling = _dotted(decorator)
            if classes and spelling in _METHOD_DECORATORS and self.module_is_free(spelling):
                kind = spelling
            elif self.known_decorator(decorator, _TRANSPARENT_DECORATORS) is not None:
                if kind is None:
                    kind = "cache"
            else:
                self.fail(
                    "`%s` is decorated with `%s`: the decorator's wrapper runs first, and "
                    "binding it needs running code" % (name, self.segment(decorator, self.source_text))
                )
        args = []
        for index, node in enumerate(call.args):
            if isinstance(node, ast.Starred):
                value = self.literal(node.value, self.call_text, "argument %d" % (index + 1))
                try:
                    args.extend(value)
                except TypeError:
                    self.fail("argument %d: the value after * must be an iterable, not %s"
                              % (index + 1, type(value).__name__))
            else:
                args.append(self.literal(node, self.call_text, "argument %d" % (index + 1)))
        kwargs = {}
        for keyword_node in call.keywords:
            if keyword_node.arg is None:
                value = self.literal(keyword_node.value, self.call_text, "a **argument")
                if not isinstance(value, dict):
                    self.fail("a **argument must be a mapping, not %s" % type(value).__name__)
                pairs = list(value.items())
            else:
                value = self.literal(keyword_node.value, self.call_text,
                                     "argument `%s=`" % keyword_node.arg)
                pairs = [(keyword_node.arg, value)]
            for key, item in pairs:
                if not isinstance(key, str):
                    self.fail("keywords must be strings")
                if key in kwargs:
                    self.fail("got multiple values for keyword argument '%s'" % key)
                kwargs[key] = item
        line = decorators[0].lineno if decorators else function.lineno
        signature = self.signature(function, name, line, bool(classes))
        parameters = self.parameter_names(function)
        code = self.find_code(name, line, parameters)
        free = list(code.co_freevars) if code is not None else []
        qualname = ".".join(c.name for c in classes)
        if kind == "classmethod":
            args.insert(0, _class_shown(self.module_name, qualname))
        if kind == "cache":
            try:
                hash((tuple(args), tuple(sorted(kwargs.items()))))
            except TypeError as error:
                self.fail("`%s` caches its results and %s" % (name, error))
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            self.fail("does not fit `%s%s`: %s" % (name, signature, error))
        bound.apply_defaults()
        values = dict(bound.arguments)
        for variable in free:
            if variable != "__class__" or not classes:
                self.fail("`%s` reads the variable `%s` of an enclosing function; binding "
                          "it needs running code" % (name, variable))
            values[variable] = _class_shown(self.module_name, qualname)
        order = _frame_locals_order(parameters, code)
        return name, line, [(local, values[local]) for local in order]

    def signature(self, function, name, line, in_class):
        """The `inspect.Signature` of the def (or lambda) `function`, its
        defaults evaluated as literals."""
        import inspect

        arguments = function.args
        empty = inspect.Parameter.empty
        positional_only = list(getattr(arguments, "posonlyargs", []))
        positional = positional_only + list(arguments.args)
        defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
        parameters = []

        def default_of(argument, node):
            if node is None:
                return empty
            describe = "the default of parameter `%s` of `%s`" % (argument.arg, name)
            value = self.literal(node, self.source_text, describe, before=line, in_class=in_class)
            if not _is_immutable(value) and self.module_runs_file_code():
                self.fail("%s is mutable and the file's top level calls the file's code, which "
                          "may change it; binding needs running code" % describe)
            return value

        for argument, node in zip(positional, defaults):
            kind = (inspect.Parameter.POSITIONAL_ONLY if argument in positional_only
                    else inspect.Parameter.POSITIONAL_OR_KEYWORD)
            parameters.append(inspect.Parameter(argument.arg, kind, default=default_of(argument, node)))
        if arguments.vararg is not None:
            parameters.append(inspect.Parameter(arguments.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
        for argument, node in zip(arguments.kwonlyargs, arguments.kw_defaults):
            parameters.append(inspect.Parameter(argument.arg, inspect.Parameter.KEYWORD_ONLY,
                                                default=default_of(argument, node)))
        if arguments.kwarg is not None:
            parameters.append(inspect.Parameter(arguments.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
        return inspect.Signature(parameters)

    @staticmethod
    def parameter_names(function):
        """The parameters in `co_varnames` order: positional, keyword-only,
        `*args`, `**kwargs`."""
        arguments = function.args
        names = [a.arg for a in list(getattr(arguments, "posonlyargs", [])) + list(arguments.args)]
        names += [a.arg for a in arguments.kwonlyargs]
        if arguments.vararg is not None:
            names.append(arguments.vararg.arg)
        if arguments.kwarg is not None:
            names.append(arguments.kwarg.arg)
        return names

    def find_code(self, name, line, parameters):
        """The function's code object in the compiled (never run) module:
        its cell and free variables, as this interpreter lays them out."""
        stack = [self.code]
        while stack:
            code = stack.pop()
            for constant in code.co_consts:
                if not isinstance(constant, types.CodeType):
                    continue
                if (
                    constant.co_name == name
                    and constant.co_firstlineno == line
                    and list(constant.co_varnames[: len(parameters)]) == parameters
                ):
                    return constant
                stack.append(constant)
        return None


def _frame_locals_order(parameters, code):
    """The order `frame.f_locals` lists the parameters and free variables
    in at the call event (as the tracer reads it: after the trace machinery
    read it once). Python 3.11+: the parameters, then the free variables.
    Before 3.11 a parameter captured by an inner function lives in a cell:
    each read of `f_locals` deletes it and adds it again after the free
    variables, in `co_cellvars` order."""
    if code is None:
        return list(parameters)
    free = list(code.co_freevars)
    if sys.version_info >= (3, 11):
        return list(parameters) + free
    cells = [name for name in code.co_cellvars if name in parameters]
    return [name for name in parameters if name not in cells] + free + cells


def _module_name_for(path):
    """The module name `load_target` would give the file (for class reprs),
    judged by the modules loaded so far, as `load_target` judges it."""
    path = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    usable = stem.isidentifier() and not keyword.iskeyword(stem)
    return stem if usable and stem not in sys.modules else "__ndb_target__"


def bind_entry_call(path, call_text):
    """The first state of the entry call `call_text` on the file `path`
    without running it: (function name, line, [(name, value), ...]) as the
    tracer's `call` event would show them, values unrepr'd. Raises
    TargetError ("syntax", "entry" or "load") when that needs running code."""
    path = os.path.abspath(path)
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError as error:
        raise TargetError("cannot read %s: %s" % (path, error.strerror or error), "load")
    try:
        # Compiled, never run: for every syntax error the tracer would report
        # and for the code objects' cell and free variables.
        code = compile(source, path, "exec", dont_inherit=True)
        tree = ast.parse(source, path)
    except SyntaxError as error:
        raise TargetError(
            "syntax error in %s line %s: %s" % (path, error.lineno, error.msg), "syntax"
        )
    except ValueError as error:  # null bytes in the source
        raise TargetError("syntax error in %s line 1: %s" % (path, error), "syntax")
    except (RecursionError, MemoryError) as error:
        raise TargetError("the file is too deeply nested or too big to parse (%s)"
                          % type(error).__name__, "syntax")
    text = call_text.strip()
    try:
        call_tree = ast.parse(text, "<entry call>", "eval")
    except SyntaxError as error:
        raise TargetError("entry call `%s` does not parse: %s" % (text, error.msg), "entry")
    except (ValueError, RecursionError, MemoryError) as error:
        raise TargetError("entry call `%s` does not parse: %s" % (text, type(error).__name__), "entry")
    call = call_tree.body
    if not isinstance(call, ast.Call):
        raise TargetError(
            "entry call `%s` is not a call expression such as `f(1, 2)`" % text, "entry"
        )
    source_text = source.decode("utf-8", "replace")
    return _Binder(tree, code, path, source_text, text).bind(call)


def _bind_main(options):
    """`--bind`: print the binding as one JSON line (after `ready`)."""
    channel = _Channel()
    channel.send({"type": "ready", "python": platform.python_version()})
    _set_memory_limit(options.memory_limit)
    try:
        name, line, local_items = bind_entry_call(options.file, options.call)
        locals_list = [
            [local, bounded_repr(value, options.max_repr, options.max_items)]
            for local, value in local_items
        ]
    except TargetError as error:
        channel.send({"type": "error", "kind": error.kind, "message": str(error)})
        os._exit(2)
    except MemoryError:
        channel.send({"type": "error", "kind": "entry", "message": "out of memory while binding"})
        os._exit(2)
    channel.send({"type": "binding", "function": name, "line": line, "locals": locals_list})
    os._exit(0)


# ---------------------------------------------------------------------------
# The running tracer (only used by main)


class _Channel:
    """The protocol channel: a private duplicate of the original stdout. Each
    line is one os.write, so a crash of the traced program loses nothing that
    was recorded before it."""

    def __init__(self):
        self.fd = os.dup(1)  # not inheritable: the user's children never see it

    def send(self, message):
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        view = memoryview(data)
        try:
            while view:
                written = os.write(self.fd, view)
                view = view[written:]
        except OSError:
            os._exit(3)  # the reader is gone: nobody is listening


class _StdoutCapture:
    """Points fd 1 (and so sys.stdout and the user's children) at a pipe
    drained by a thread that keeps the first `limit` bytes and counts the rest."""

    def __init__(self, limit):
        self.limit = max(limit, 0)
        self.data = bytearray()
        self.dropped = 0
        read_fd, write_fd = os.pipe()
        os.dup2(write_fd, 1)
        os.close(write_fd)
        self.read_fd = read_fd
        self.thread = threading.Thread(target=self._drain, name="ndb-stdout", daemon=True)
        self.thread.start()

    def _drain(self):
        while True:
            try:
                chunk = os.read(self.read_fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            room = self.limit - len(self.data)
            if room > 0:
                self.data += chunk[:room]
            self.dropped += max(len(chunk) - max(room, 0), 0)

    def collect(self):
        for stream in (sys.stdout, sys.__stdout__):
            try:
                stream.flush()
            except BaseException:
                pass
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)
        except OSError:
            pass
        self.thread.join(1.0)
        text = bytes(self.data).decode("utf-8", "replace")
        if self.dropped:
            text += "...<+%d bytes>" % self.dropped
        return text


def _redirect_stdin():
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    except OSError:
        pass
    sys.stdin = io.StringIO("")


def _set_memory_limit(limit):
    if not limit:
        return
    try:
        import resource
    except ImportError:
        return
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        pass


def _format_seconds(seconds):
    return "%gs" % seconds


class _Tracer:
    def __init__(self, path, channel, capture, options, started):
        self.target_path = os.path.realpath(path)
        self.channel = channel
        self.capture = capture
        self.max_events = options.max_events
        self.time_limit = options.time_limit
        self.deadline = started + options.time_limit
        self.memory_limit = options.memory_limit
        self.max_repr = options.max_repr
        self.max_items = options.max_items
        self.filename_is_target = {}
        self.serials = {}  # id(frame) -> serial, while the frame lives
        self.depths = {}  # id(frame) -> depth of its current activation
        self.kept_frames = {}  # generator frames, kept so their ids stay unique
        self.next_serial = 1
        self.events = 0
        self.pid = os.getpid()
        self.disabled = False
        # Freed when memory runs out, so the exit line can still be written.
        self.reserve = bytearray(4 << 20)

    # -- the trace functions -------------------------------------------------

    def trace_global(self, frame, event, arg):
        if self.disabled or not self._is_target_code(frame.f_code):
            return None
        self._record(frame, event, arg)
        return self.trace_local

    def trace_local(self, frame, event, arg):
        if self.disabled:
            return None
        self._record(frame, event, arg)
        return self.trace_local

    def _is_target_code(self, code):
        filename = code.co_filename
        known = self.filename_is_target.get(filename)
        if known is None:
            known = _realpath(filename) == self.target_path
            self.filename_is_target[filename] = known
        return known

    def _record(self, frame, event, arg):
        try:
            if self.events >= self.max_events:
                self.finish("never", None, "event limit of %d events reached" % self.max_events)
            if time.monotonic() > self.deadline:
                self.finish("never", None, "time limit of %s reached" % _format_seconds(self.time_limit))
            try:
                message = self._describe(frame, event, arg)
            except RecursionError:
                # The user's code is near the recursion limit: the trace
                # function needs a few more frames than the user has left.
                limit = sys.getrecursionlimit()
                sys.setrecursionlimit(limit + 200)
                try:
                    message = self._describe(frame, event, arg)
                finally:
                    sys.setrecursionlimit(limit)
            self._commit(frame, event, message)
        except MemoryError:
            self.reserve = None
            self.finish("never", None, self._memory_reason())
        except BaseException:
            import traceback

            self.reserve = None
            sys.settrace(None)
            self.channel.send(
                {"type": "error", "kind": "internal", "message": traceback.format_exc()}
            )
            os._exit(2)

    def _describe(self, frame, event, arg):
        code = frame.f_code
        key = id(frame)
        serial = self.serials.get(key)
        if serial is None:
            serial = self.next_serial
            self.next_serial += 1
            self.serials[key] = serial
        caller = frame.f_back
        if event == "call" or key not in self.depths:
            depth = self._depth_below(caller)
        else:
            depth = self.depths[key]
        parent = None
        if caller is not None and self._is_target_code(caller.f_code):
            parent = self.serials.get(id(caller))
        max_chars, max_items = self.max_repr, self.max_items
        local_items = list(frame.f_locals.items())
        locals_list = [[str(name), bounded_repr(value, max_chars, max_items)] for name, value in local_items]
        value = None
        exception_type = None
        traceback_is_none = False
        if event == "return":
            value = bounded_repr(arg, max_chars, max_items)
        elif event == "exception":
            value = bounded_repr(arg[1], max_chars, max_items)
            exception_type = getattr(arg[0], "__name__", None) or type(arg[1]).__name__
            traceback_is_none = arg[2] is None
        line = frame.f_lineno
        return {
            "type": "event",
            "kind": event,
            "line": line if line is not None else 0,
            "depth": depth,
            "frame": serial,
            "parent": parent,
            "function": code.co_name,
            "generator": bool(code.co_flags & GENERATOR_FLAGS),
            "locals": locals_list,
            "value": value,
            "exception_type": exception_type,
            "traceback_is_none": traceback_is_none,
        }

    def _depth_below(self, caller):
        """The number of target-file frames below, from the nearest one whose
        depth is known (every traced frame's is)."""
        depth = 0
        frame = caller
        while frame is not None:
            if self._is_target_code(frame.f_code):
                known = self.depths.get(id(frame))
                if known is not None:
                    return depth + known + 1
                depth += 1
            frame = frame.f_back
        return depth

    def _commit(self, frame, event, message):
        key = id(frame)
        self.depths[key] = message["depth"]
        self.events += 1
        self.channel.send(message)
        if message["generator"]:
            self.kept_frames[key] = frame
        elif event == "return":
            del self.serials[key]
            del self.depths[key]

    # -- running and finishing -----------------------------------------------

    def _memory_reason(self):
        if self.memory_limit:
            return "memory limit of %d bytes reached" % self.memory_limit
        return "out of memory"

    def after_fork_in_child(self):
        # A forked child continues the user's code but must not write to the
        # protocol channel.
        self.disabled = True
        sys.settrace(None)

    def run(self, function, args, kwargs):
        try:
            os.register_at_fork(after_in_child=self.after_fork_in_child)
        except AttributeError:
            pass
        self.channel.send({"type": "start"})
        sys.settrace(self.trace_global)
        try:
            result = function(*args, **kwargs)
        except MemoryError:
            sys.settrace(None)
            self.reserve = None
            outcome = ("never", None, self._memory_reason())
        except BaseException as error:
            sys.settrace(None)
            outcome = ("error", bounded_repr(error, self.max_repr, self.max_items), None)
        else:
            sys.settrace(None)
            outcome = ("normal", bounded_repr(result, self.max_repr, self.max_items), None)
        self.finish(*outcome)

    def finish(self, status, value, reason):
        sys.settrace(None)
        if self.disabled or os.getpid() != self.pid:
            os._exit(0)
        stdout = self.capture.collect()
        self.channel.send(
            {"type": "exit", "status": status, "value": value, "reason": reason, "stdout": stdout}
        )
        os._exit(0)


def _parse_arguments(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="ndb_tracer", description="The ndb tracer.")
    parser.add_argument("--file")
    parser.add_argument("--call")
    parser.add_argument("--max-events", type=int, default=10000)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--memory-limit", type=int, default=1 << 30)
    parser.add_argument("--max-stdout", type=int, default=65536)
    parser.add_argument("--max-repr", type=int, default=200)
    parser.add_argument("--max-items", type=int, default=50)
    parser.add_argument("--bind", action="store_true")
    parser.add_argument("--self-test", action="store_true")
    options = parser.parse_args(argv)
    if not options.self_test and (options.file is None or options.call is None):
        parser.error("--file and --call are required")
    return options


def main(argv=None):
    started = time.monotonic()
    options = _parse_arguments(argv)
    if options.self_test:
        sys.exit(_self_test())
    if options.bind:
        _bind_main(options)
    try:
        sys.stdout.flush()
    except BaseException:
        pass
    channel = _Channel()
    capture = _StdoutCapture(options.max_stdout)
    _redirect_stdin()
    channel.send({"type": "ready", "python": platform.python_version()})
    reserve = bytearray(4 << 20)
    _set_memory_limit(options.memory_limit)
    try:
        module = load_target(options.file)
        function, args, kwargs = parse_entry_call(options.call, module.__dict__)
    except TargetError as error:
        channel.send({"type": "error", "kind": error.kind, "message": str(error)})
        os._exit(2)
    except MemoryError:
        reserve = None
        channel.send({"type": "error", "kind": "load", "message": "out of memory while loading"})
        os._exit(2)
    del reserve
    _Tracer(options.file, channel, capture, options, started).run(function, args, kwargs)


# ---------------------------------------------------------------------------
# Self-test: `python3 ndb_tracer.py --self-test` exits non-zero on failure.


def _self_test():
    import collections
    import datetime
    import decimal
    import fractions
    import enum

    class Plain(object):
        pass

    class Colour(enum.Enum):
        RED = 1

    Point = collections.namedtuple("Point", "x y")

    class MyList(list):
        pass

    class MyDict(dict):
        pass

    class MySet(set):
        pass

    looped = [1]
    looped.append(looped)
    looped_dict = {"a": 1}
    looped_dict["self"] = looped_dict
    shared = [1, 2]
    looped_tuple = ([],)
    looped_tuple[0].append(looped_tuple)

    same = [
        None, True, False, 0, -5, 10 ** 20, 3.5, float("nan"), float("-inf"), -0.0, 1 + 2j,
        "abc", "it's", 'both \' and "', "\n\t\x00\u00e9\U0001f600", "", b"", b"by\xfftes'",
        bytearray(b"x"), [], [1, [2, [3, []]]], (), (1,), (1, "a", (2,)), {},
        {"a": 1, 2: [3], (4,): {5: None}}, set(), {1, 2, 3}, frozenset(), frozenset({3}),
        MySet(), MySet({1}), MyList([1, 2]), MyDict(a=1), Point(1, 2),
        collections.OrderedDict(a=1), collections.Counter("aab"), collections.deque([1]),
        range(5), slice(1, 2), Ellipsis, NotImplemented, int, len, Colour.RED,
        decimal.Decimal("1.10"), fractions.Fraction(1, 3), datetime.date(2024, 1, 2),
        looped, looped_dict, looped_tuple, [shared, shared], [(1,), [2]], {"k": (1,)},
    ]
    failures = []
    for value in same:
        got = bounded_repr(value)
        if got != repr(value):
            failures.append("bounded_repr(%r) gave %r" % (value, got))

    class Raises(object):
        def __repr__(self):
            raise ValueError("no")

    nested = [[[[[[[[1]]]]]]]]
    expected = [
        (bounded_repr(list(range(100)), max_items=3), "[0, 1, 2, ...<+97>]"),
        (bounded_repr({i: i + 1 for i in range(6)}, max_items=1), "{0: 1, ...<+5>}"),
        (bounded_repr(tuple(range(5)), max_items=1), "(0, ...<+4>)"),
        (bounded_repr(set(range(5)), max_items=0), "{...<+5>}"),
        (bounded_repr(frozenset(range(3)), max_items=2), "frozenset({0, 1, ...<+1>})"),
        (bounded_repr("a" * 1000, max_chars=4), "'aaaa'...<+996 chars>"),
        (bounded_repr(b"a" * 10, max_chars=4), "b'aaaa'...<+6 bytes>"),
        (bounded_repr(Raises()), "<repr failed: ValueError>"),
        (bounded_repr([Raises()]), "<repr failed: ValueError>"),
        (bounded_repr(Plain()), "<__main__._self_test.<locals>.Plain object at 0x...>"
         if __name__ == "__main__" else bounded_repr(Plain())),
        (bounded_repr(nested), "[[[[[[[...]]]]]]]"),
        (bounded_repr(range(10 ** 6), max_chars=5), "range...<+12 chars>"),
        (bounded_repr(["x" * 300]), "['" + "x" * 200 + "'...<+100 chars>]"),
    ]
    for got, want in expected:
        if got != want:
            failures.append("got %r, expected %r" % (got, want))
    if " at 0x..." not in bounded_repr(Plain()):
        failures.append("address not normalised: %r" % bounded_repr(Plain()))
    huge = bounded_repr([["y" * 1000] * 100] * 100)
    if len(huge) > 200 * TOTAL_REPR_FACTOR + 2000:
        failures.append("total budget not enforced: %d chars" % len(huge))
    namespace = {"f": lambda *args, **kwargs: (args, kwargs), "xs": [2, 3], "kw": {"z": 4}}
    function, args, kwargs = parse_entry_call(" f(1, *xs, k=len('ab'), **kw) ", namespace)
    if (args, kwargs) != ([1, 2, 3], {"k": 2, "z": 4}) or function is not namespace["f"]:
        failures.append("parse_entry_call gave %r %r" % (args, kwargs))
    for text, fragment in [
        ("f(", "does not parse"),
        ("f", "not a call expression"),
        ("g(1)", "name 'g' is not defined"),
        ("xs()", "is not callable"),
        ("f(1 / 0)", "raised ZeroDivisionError"),
    ]:
        try:
            parse_entry_call(text, namespace)
            failures.append("parse_entry_call(%r) did not fail" % text)
        except TargetError as error:
            if error.kind != "entry" or fragment not in str(error):
                failures.append("parse_entry_call(%r) failed with %r" % (text, str(error)))
    for failure in failures:
        sys.stderr.write("self-test failure: %s\n" % failure)
    if not failures:
        sys.stderr.write("self-test passed: %d values\n" % (len(same) + len(expected)))
    return 1 if failures else 0


if __name__ == "__main__":
    main()
