"""The ndb tracer: runs one entry call of a Python file under sys.settrace and
writes every call, line, return and exception event of that file's frames as
one JSON line to the protocol channel (the process's original stdout).

Run as a script (the Rust side runs `python -B -c <this text> ARGS`):

    python3 ndb_tracer.py --file PATH --call EXPR [--max-events N]
        [--time-limit SECONDS] [--memory-limit BYTES] [--max-stdout BYTES]
        [--max-repr CHARS] [--max-items N]
    python3 ndb_tracer.py --self-test

Protocol, one JSON object per line, in this order:
    {"type": "ready", "python": "3.11.7"}        the script started
    {"type": "error", "kind": "syntax"|"entry"|"load"|"internal", "message": ...}
                                                   setup failed (exit code 2)
    {"type": "start"}                               tracing starts
    {"type": "event", ...}                          one per event
    {"type": "exit", "status": ..., "value": ..., "reason": ..., "stdout": ...}

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
