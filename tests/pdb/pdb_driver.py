#!/usr/bin/env python3
"""Drive the standard library's real pdb over one program and report every stop.

This is the oracle the project's state tree is checked against: pdb (not this
file) decides where each command stops. The driver only turns the project's
actions into pdb commands, feeds them through pdb's own command loop, and
writes down, for each stop, the event, line, depth and locals in the same
shape the project uses.

Input (stdin, one JSON object):
    {"file": PATH, "entry_call": "f([1, 2])",
     "runs": [["step_into", "step_over", "breakpoint:7", "step_return", "continue"], ...],
     "time_limit": 5.0, "max_repr": 200, "max_items": 50}
Output (stdout): one JSON line per run, in order:
    {"stops": [STATE, ...], "error": null | "message"}
    STATE = {"event", "line", "depth", "locals", "value", "status"}

`--selftest [PATH ...]` runs the driver over the corpus in tests/programs (or
the given files/directories) and prints a one-line summary; see README.md.
"""

import bdb
import importlib.util
import io
import json
import linecache
import os
import pdb
import signal
import sys
import traceback

sys.dont_write_bytecode = True  # no __pycache__ next to the driver or the programs

HERE = os.path.dirname(os.path.abspath(__file__))
TRACER_PATH = os.path.normpath(
    os.path.join(HERE, "..", "..", "inference", "src", "tracer", "ndb_tracer.py")
)

# pdb imports readline when it is built; readline may write terminal escape
# codes to fd 1, which is our protocol channel. pdb tolerates ImportError.
sys.modules.setdefault("readline", None)

# pdb injects these into f_locals of the frame it stops in (and they stay in
# the frame's locals dict afterwards); they are not the program's variables.
INJECTED_LOCALS = ("__return__", "__exception__")

ACTION_COMMANDS = {
    "step_into": ["step"],
    "step_over": ["next"],
    "step_return": ["return"],
    "continue": ["continue"],
}


def _load_tracer():
    """The project's tracer module, imported by path: the driver must use
    exactly the tracer's reprs, module loading and entry-call parsing, so a
    tracer that fails to import is an error, never silently replaced."""
    spec = importlib.util.spec_from_file_location("ndb_tracer", TRACER_PATH)
    tracer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tracer)
    return tracer


_TRACER = _load_tracer()
bounded_repr = _TRACER.bounded_repr
load_target = _TRACER.load_target
parse_entry_call = _TRACER.parse_entry_call

# The wrapper that calls the entry function lives in its own tiny namespace
# with a module name no target can have, so pdb's `skip` keeps it out of the
# stops. It exists because Bdb.runcall never stops at the call event of the
# function it is given (that first dispatch_call only records botframe); the
# entry function is one call deeper, so its call event is a normal stop.
WRAPPER_MODULE_NAME = "__ndb_pdb_driver_wrapper__"
_wrapper_namespace = {"__name__": WRAPPER_MODULE_NAME}
exec(
    compile(
        "def call_entry(box, function, args, kwargs):\n"
        "    box.append(function(*args, **kwargs))\n",
        "<ndb-pdb-driver-wrapper>",
        "exec",
    ),
    _wrapper_namespace,
)
call_entry = _wrapper_namespace["call_entry"]


class _TimeLimit(BaseException):
    """Raised by the watchdog inside the traced program when time is up.

    A BaseException so that the program's own `except Exception:` does not
    swallow it.
    """


class _Discard(io.TextIOBase):
    """A text sink for the program's own prints (never grows)."""

    def writable(self):
        return True

    def write(self, text):
        return len(text)


class _Watchdog:
    """SIGALRM-based time limit that raises _TimeLimit in the main thread."""

    def __init__(self):
        self.armed = False
        self.fired = False
        self._previous = None

    def _handler(self, signum, frame):
        if self.armed:
            self.fired = True
            raise _TimeLimit()

    def arm(self, seconds):
        self.fired = False
        self._previous = signal.signal(signal.SIGALRM, self._handler)
        self.armed = True
        # Re-fire every 50 ms in case the program catches the first one.
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001), 0.05)

    def disarm(self):
        self.armed = False
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        if self._previous is not None:
            signal.signal(signal.SIGALRM, self._previous)
            self._previous = None


def _state(event, line=None, depth=None, local_vars=None, value=None, status=None):
    return {
        "event": event,
        "line": line,
        "depth": depth,
        "locals": local_vars,
        "value": value,
        "status": status,
    }


class RecordingPdb(pdb.Pdb):
    """The real pdb, recording every stop before its normal interaction.

    user_call/user_line/user_return/user_exception note which event is being
    handled; the base methods decide whether pdb stops, and every time pdb
    enters `interaction` that is one stop, recorded exactly once.
    """

    def __init__(self, commands_text, target_file, target_module_name, max_repr, max_items):
        super().__init__(
            stdin=io.StringIO(commands_text),
            stdout=io.StringIO(),
            skip=["*"],  # non-empty; is_skipped_module below is the real rule
            nosigint=True,
            readrc=False,
        )
        self.use_rawinput = False
        self.target_file = target_file
        self.target_module_name = target_module_name
        self.max_repr = max_repr
        self.max_items = max_items
        self.stops = []
        self.commands_exhausted = False
        self.foreign_stops = 0
        self._pending = None
        self._target_filenames = {}
        # Set by run_once: once it has fired, the run is cut off (never).
        self.watchdog = None

    # -- which frames belong to the program ------------------------------------

    def is_target_frame(self, frame):
        filename = frame.f_code.co_filename
        known = self._target_filenames.get(filename)
        if known is None:
            known = os.path.realpath(filename) == self.target_file
            self._target_filenames[filename] = known
        return known

    def is_skipped_module(self, module_name):
        return module_name != self.target_module_name

    def stop_here(self, frame):
        # Same rule as `skip`, by file: code compiled into the target module's
        # namespace from a string (dataclass __init__, namedtuple __new__) has
        # the target's module name but is not part of the program's source.
        if not self.is_target_frame(frame):
            return False
        return super().stop_here(frame)

    # -- recording -------------------------------------------------------------

    def _depth(self, frame):
        depth = 0
        caller = frame.f_back
        while caller is not None:
            if self.is_target_frame(caller):
                depth += 1
            caller = caller.f_back
        return depth

    def _repr(self, value):
        try:
            return bounded_repr(value, self.max_repr, self.max_items)
        except Exception as error:  # never let a repr kill the run
            return f"<repr failed: {type(error).__name__}>"

    def _dispatch_user(self, event, frame, argument, base_method):
        if not self.is_target_frame(frame):
            # Only reachable through Bdb.dispatch_exception's generator
            # branch, which bypasses stop_here; a skipped frame is skipped.
            self.foreign_stops += 1
            return None
        self._pending = (event, frame, argument)
        try:
            return base_method(frame, argument)
        finally:
            self._pending = None

    def user_call(self, frame, argument_list):
        return self._dispatch_user("call", frame, argument_list, super().user_call)

    def user_line(self, frame):
        return self._dispatch_user(
            "line", frame, None, lambda f, _unused: pdb.Pdb.user_line(self, f)
        )

    def user_return(self, frame, return_value):
        return self._dispatch_user("return", frame, return_value, super().user_return)

    def user_exception(self, frame, exc_info):
        return self._dispatch_user("exception", frame, exc_info, super().user_exception)

    def interaction(self, frame, traceback_object):
        if self.watchdog is not None and self.watchdog.fired:
            # The time limit interrupted the program: stops after that (the
            # exception and returns it causes) are not the program's own.
            raise _TimeLimit()
        if self.commands_exhausted:
            return super().interaction(frame, traceback_object)
        pending = self._pending
        self._pending = None
        if pending is not None and pending[1] is frame:
            event, _frame, argument = pending
            if event in ("call", "line"):
                local_vars = {
                    name: self._repr(value)
                    for name, value in frame.f_locals.items()
                    if name not in INJECTED_LOCALS
                }
                state = _state(event, frame.f_lineno, self._depth(frame), local_vars)
            elif event == "return":
                state = _state(event, frame.f_lineno, self._depth(frame), None, self._repr(argument))
            else:
                state = _state(event, frame.f_lineno, self._depth(frame), None, self._repr(argument[1]))
            self.stops.append(state)
        return super().interaction(frame, traceback_object)

    def do_EOF(self, arg):
        # Commands ran out: pdb quits (BdbQuit); nothing after this is recorded.
        self.commands_exhausted = True
        return super().do_EOF(arg)


def actions_to_commands(actions):
    """Translate project actions into pdb command lines (raises ValueError)."""
    lines = []
    for action in actions:
        if not isinstance(action, str):
            raise ValueError(f"action is not a string: {action!r}")
        if action in ACTION_COMMANDS:
            lines.extend(ACTION_COMMANDS[action])
        elif action.startswith("breakpoint:"):
            text = action[len("breakpoint:"):].strip()
            if not text.isdigit() or int(text) < 1:
                raise ValueError(f"bad breakpoint line in {action!r}")
            lines.extend([f"tbreak {int(text)}", "continue"])
        else:
            raise ValueError(f"unknown action {action!r}")
    return "".join(line + "\n" for line in lines)


def run_once(path, entry_call, actions, time_limit=5.0, max_repr=200, max_items=50,
             debugger_class=None):
    """Run the program once under pdb with the given actions.

    Returns {"stops": [...], "error": None | str}. Never raises.
    `debugger_class` (a RecordingPdb subclass) is for the self-test only.
    """
    stops = []
    saved_stdout, saved_stderr, saved_stdin = sys.stdout, sys.stderr, sys.stdin
    watchdog = _Watchdog()
    debugger = None
    try:
        commands_text = actions_to_commands(actions)
        # Loaded by its absolute path, as the tracer loads it (the module name
        # comes from the file name); frames are matched by real path.
        load_path = os.path.abspath(path)
        target_file = os.path.realpath(path)
        linecache.checkcache()
        bdb.Breakpoint.clearBreakpoints()
        sys.stdout, sys.stderr, sys.stdin = _Discard(), _Discard(), io.StringIO("")
        watchdog.arm(time_limit)
        try:
            module = load_target(load_path)
            function, args, kwargs = parse_entry_call(entry_call, vars(module))
        except _TimeLimit:
            raise RuntimeError("loading the program or its entry arguments timed out")
        finally:
            watchdog.disarm()
        debugger = (debugger_class or RecordingPdb)(
            commands_text, target_file, getattr(module, "__name__", None), max_repr, max_items
        )
        stops = debugger.stops
        debugger.watchdog = watchdog
        box = []
        outcome = None
        watchdog.arm(time_limit)
        try:
            try:
                debugger.runcall(call_entry, box, function, args, kwargs)
                outcome = ("normal", box[0] if box else None)
            finally:
                watchdog.disarm()
                sys.settrace(None)
        except _TimeLimit:
            outcome = ("never", None)
        except RecursionError as error:
            outcome = ("error", error)
        except BaseException as error:  # the program's uncaught exception
            if isinstance(error, bdb.BdbQuit):
                outcome = None
            else:
                outcome = ("error", error)
        if watchdog.fired and outcome is not None and outcome[0] != "never":
            # The program caught our _TimeLimit and then ended or raised.
            outcome = ("never", None)
        if outcome is not None and not debugger.commands_exhausted:
            status, value = outcome
            if status == "never":
                stops.append(_state("exit", status="never"))
            else:
                stops.append(_state("exit", value=debugger._repr(value), status=status))
        return {"stops": stops, "error": None}
    except BaseException as error:  # internal failure: report, never crash
        watchdog.disarm()
        sys.settrace(None)
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        return {"stops": stops, "error": detail}
    finally:
        sys.settrace(None)
        sys.stdout, sys.stderr, sys.stdin = saved_stdout, saved_stderr, saved_stdin
        if debugger is not None:
            try:
                debugger.clear_all_breaks()
            except Exception:
                pass
        bdb.Breakpoint.clearBreakpoints()


def serve(stdin_text, out):
    try:
        request = json.loads(stdin_text)
        if not isinstance(request, dict):
            raise ValueError("input is not a JSON object")
        path = request["file"]
        entry_call = request["entry_call"]
        runs = request.get("runs", [])
        if not isinstance(runs, list):
            raise ValueError("runs is not a list")
        time_limit = float(request.get("time_limit", 5.0))
        max_repr = int(request.get("max_repr", 200))
        max_items = int(request.get("max_items", 50))
    except Exception as error:
        out.write(json.dumps({"stops": [], "error": f"bad request: {error}"}) + "\n")
        out.flush()
        return 1
    for actions in runs:
        if not isinstance(actions, list):
            result = {"stops": [], "error": "a run is not a list of actions"}
        else:
            result = run_once(path, entry_call, actions, time_limit, max_repr, max_items)
        out.write(json.dumps(result) + "\n")
        out.flush()
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--selftest":
        sys.path.insert(0, HERE)
        import _selftest  # noqa: E402  (kept apart: the driver stays small)

        return _selftest.main(argv[2:])
    out = sys.stdout
    return serve(sys.stdin.read(), out)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
