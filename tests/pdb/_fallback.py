"""Temporary stand-ins for the project tracer's helpers.

pdb_driver.py imports `bounded_repr`, `load_target` and `parse_entry_call`
from inference/src/tracer/ndb_tracer.py when that file exists and defines
them; each name that is missing there is taken from here instead. The
signatures are the same as the tracer's, so the driver does not care which
one it got. Keep this file small: it is a fallback, not a second tracer.
"""

import ast
import importlib.util
import itertools
import os
import re
import sys

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")
_ELLIPSIS = "..."


def _container_repr(value, max_items):
    """repr() of a list/tuple/set/dict, with at most max_items items shown.

    Only the top level is bounded; nested values use plain repr(). Returns
    None for anything that is not one of the plain builtin containers (or is
    small enough that repr() is already the answer).
    """
    kind = type(value)
    if kind not in (list, tuple, set, frozenset, dict) or len(value) <= max_items:
        return None
    if kind is dict:
        shown = ", ".join(
            f"{k!r}: {v!r}" for k, v in itertools.islice(value.items(), max_items)
        )
        return "{" + shown + ", " + _ELLIPSIS + "}"
    shown = ", ".join(repr(item) for item in itertools.islice(value, max_items))
    if kind is list:
        return "[" + shown + ", " + _ELLIPSIS + "]"
    if kind is tuple:
        return "(" + shown + ", " + _ELLIPSIS + ")"
    if kind is set:
        return "{" + shown + ", " + _ELLIPSIS + "}"
    return "frozenset({" + shown + ", " + _ELLIPSIS + "})"


def bounded_repr(value, max_chars=200, max_items=50):
    """repr() text of value, bounded in length and in container items.

    For small values this is exactly repr(value) with object addresses
    (` at 0x7f...>`) replaced by ` at 0x...>` so that two runs agree.
    """
    try:
        text = _container_repr(value, max_items)
        if text is None:
            text = repr(value)
    except Exception as error:  # a user __repr__ may raise anything
        text = f"<repr raised {type(error).__name__}>"
    if not isinstance(text, str):
        text = str(text)
    text = _ADDRESS.sub(" at 0x...>", text)
    if len(text) > max_chars:
        text = text[: max(0, max_chars - len(_ELLIPSIS))] + _ELLIPSIS
    return text


def load_target(path):
    """Load the Python file at path as a fresh module and return it.

    The module is registered in sys.modules while it exists (dataclasses and
    typing look their class's module up there); loading again replaces it.
    """
    path = os.path.realpath(path)
    name = "ndb_target_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def parse_entry_call(expr, namespace):
    """Evaluate one call expression's callee and arguments, without calling.

    Returns (callable, args, kwargs). `expr` must be a single call such as
    `f([3, 1, 2], key=len)`; names are looked up in `namespace` (the target
    module's globals).
    """
    tree = ast.parse(expr.strip(), mode="eval")
    call = tree.body
    if not isinstance(call, ast.Call):
        raise ValueError(f"entry is not a call expression: {expr!r}")
    callee_code = compile(ast.Expression(call.func), "<entry>", "eval")
    callee = eval(callee_code, namespace)
    collector_name = "__ndb_collect_arguments__"
    collector = ast.Call(
        func=ast.Name(id=collector_name, ctx=ast.Load()),
        args=call.args,
        keywords=call.keywords,
    )
    collector_expr = ast.fix_missing_locations(ast.Expression(collector))
    collect = lambda *args, **kwargs: (list(args), dict(kwargs))  # noqa: E731
    args, kwargs = eval(
        compile(collector_expr, "<entry>", "eval"), namespace, {collector_name: collect}
    )
    return callee, args, kwargs
