"""Self-test of pdb_driver.py over the program corpus (`pdb_driver.py --selftest`).

For every program and entry call it runs the driver with: all step_into (300),
all step_over (300), step_return repeatedly, continue, breakpoints, a mix, and
a seeded random policy (the design's training-policy weights). Hard checks
(counted as failures):

- the driver never reports an error and never hangs (time limit per run);
- every STATE has exactly the documented shape; an exit appears only last and
  only when fewer than all actions ran;
- the first stop is the entry's call at depth 0;
- the exit of a terminating program agrees with calling the entry directly
  (status and repr); a `never_*` program's `continue` ends in exit "never";
- every pdb stop is one of the events an independent sys.settrace recorder
  sees for the same call, with the same line, depth, locals or value.

It also replays each action on that recorded event list with the design's
tree semantics (section 4 of the design) and counts where pdb lands elsewhere.
Those are reported as "quirks", not failures: pdb is the oracle.

    python3 tests/pdb/pdb_driver.py --selftest [--verbose] [--quick] [FILE_OR_DIR ...]
"""

import hashlib
import json
import os
import random
import subprocess
import sys
import time

import pdb_driver as driver

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.normpath(os.path.join(HERE, "..", "programs"))
STATE_KEYS = ["event", "line", "depth", "locals", "value", "status"]
MAX_TRACE_EVENTS = 20000
NORMAL_LIMIT = 3.0
NEVER_LIMIT = 0.5
STEP_CAP = 300


# ----------------------------------------------------------------------------
# The corpus
# ----------------------------------------------------------------------------


def entries_of(path):
    entries = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#"):
                break
            if line.startswith("# entry:"):
                entries.append(line[len("# entry:"):].strip())
    return entries


def corpus_files(arguments):
    roots = arguments or [os.path.join(CORPUS, "hand"), os.path.join(CORPUS, "generated")]
    files = []
    for root in roots:
        if os.path.isdir(root):
            files += sorted(
                os.path.join(root, n) for n in os.listdir(root)
                if n.endswith(".py") and n != "generate.py"
            )
        elif os.path.isfile(root):
            files.append(root)
    return files


def never_ends(path):
    return os.path.basename(path).startswith("never_")


# ----------------------------------------------------------------------------
# Independent recording with sys.settrace (the "tree" side)
# ----------------------------------------------------------------------------


class _Truncated(BaseException):
    pass


def record_trace(path, entry_call, max_repr=200, max_items=50):
    """All events of the target file during the entry call, in time order.

    Each event: dict with STATE fields plus "inst" (ordinal of the call event
    that started the frame's current activation). Returns (events, exit_state).
    """
    target = os.path.realpath(path)
    module = driver.load_target(os.path.abspath(path))
    function, args, kwargs = driver.parse_entry_call(entry_call, vars(module))
    events, activation = [], {}
    counter = [0]
    known = {}

    def is_target(code):
        hit = known.get(code.co_filename)
        if hit is None:
            hit = known[code.co_filename] = os.path.realpath(code.co_filename) == target
        return hit

    def depth_of(frame):
        depth, caller = 0, frame.f_back
        while caller is not None:
            if is_target(caller.f_code):
                depth += 1
            caller = caller.f_back
        return depth

    def rep(value):
        try:
            return driver.bounded_repr(value, max_repr, max_items)
        except Exception as error:
            return f"<repr failed: {type(error).__name__}>"

    def add(event, frame, arg):
        if len(events) >= MAX_TRACE_EVENTS:
            raise _Truncated()
        state = driver._state(event, frame.f_lineno, depth_of(frame))
        if event in ("call", "line"):
            state["locals"] = {k: rep(v) for k, v in frame.f_locals.items()
                               if k not in driver.INJECTED_LOCALS}
        elif event == "return":
            state["value"] = rep(arg)
        else:
            state["value"] = rep(arg[1])
        state["inst"] = activation[frame]
        events.append(state)

    def local_trace(frame, event, arg):
        add(event, frame, arg)
        return local_trace

    def global_trace(frame, event, arg):
        if event != "call" or not is_target(frame.f_code):
            return None
        counter[0] += 1
        activation[frame] = counter[0]
        add("call", frame, arg)
        return local_trace

    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = driver._Discard()
    outcome = None
    sys.settrace(global_trace)
    try:
        outcome = ("normal", function(*args, **kwargs))
    except _Truncated:
        outcome = ("never", None)
    except Exception as error:
        outcome = ("error", error)
    finally:
        sys.settrace(None)  # before any repr: a __repr__ of the file is not part of the run
        sys.stdout, sys.stderr = saved
    if outcome[0] == "never":
        return events, driver._state("exit", status="never")
    return events, driver._state("exit", value=rep(outcome[1]), status=outcome[0])


class InstancePdb(driver.RecordingPdb):
    """RecordingPdb that also notes each stop's activation ordinal.

    A profile function (independent of pdb's trace function) numbers every
    activation of a target frame in the same way record_trace does.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.instances = []
        self.activation = {}
        self.counter = 0
        self.started = False
        self.numbered_early = None

    def profile(self, frame, event, arg):
        if event == "call":
            self._activate(frame)

    def _activate(self, frame):
        if self.numbered_early is frame:
            self.numbered_early = None  # its call stop already numbered it
            return
        if not self.started:
            caller = frame.f_back
            if caller is None or caller.f_code is not driver.call_entry.__code__:
                return
            self.started = True
        if self.is_target_frame(frame):
            self.counter += 1
            self.activation[frame] = self.counter

    def interaction(self, frame, traceback_object):
        # CPython calls the trace function before the profile function at a
        # frame's start, so a call stop numbers its frame itself.
        pending = self._pending
        if pending is not None and pending[0] == "call" and pending[1] is frame:
            self.numbered_early = None
            self._activate(frame)
            self.numbered_early = frame
        # RecordingPdb records the stop before pdb reads its next command, and
        # nothing else is recorded until this returns: one ordinal per stop.
        before = len(self.stops)
        try:
            return super().interaction(frame, traceback_object)
        finally:
            if len(self.stops) > before:
                self.instances.append(self.activation.get(frame))


def run_with_instances(path, entry_call, actions, limit):
    holder = {}

    class Pdb(InstancePdb):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            holder["pdb"] = self
            sys.setprofile(self.profile)

    try:
        result = driver.run_once(path, entry_call, actions, time_limit=limit, debugger_class=Pdb)
    finally:
        sys.setprofile(None)
    debugger = holder.get("pdb")
    instances = debugger.instances if debugger is not None else []
    return result, instances, (debugger.foreign_stops if debugger else 0)


# ----------------------------------------------------------------------------
# The design's semantics on the recorded events
# ----------------------------------------------------------------------------


def model_target(events, index, action):
    """Index of the design's next node after events[index]; len(events) = exit."""
    here = events[index]
    n = len(events)
    if action == "step_into":
        return index + 1
    if action == "continue":
        return n
    if action.startswith("breakpoint:"):
        line = int(action.split(":", 1)[1])
        for j in range(index + 1, n):
            if events[j]["event"] == "line" and events[j]["line"] == line:
                return j
        return n
    if action == "step_return" and here["event"] != "return":
        for j in range(index + 1, n):
            if events[j]["inst"] == here["inst"] and events[j]["event"] == "return":
                return j
        return n
    # step_over (and step_return from a return node): same level, else up.
    for j in range(index + 1, n):
        if events[j]["inst"] == here["inst"] or events[j]["depth"] < here["depth"]:
            return j
    return n


def describe(events, index, origin):
    if index >= len(events):
        return "exit"
    event = events[index]
    here = events[origin]
    if event["inst"] == here["inst"]:
        where = "same"
    elif event["depth"] < here["depth"]:
        where = "caller"
    elif event["depth"] > here["depth"]:
        where = "callee"
    else:
        where = "sibling"
    return f"{event['event']}@{where}"


def compare_with_trace(path, entry, actions, stops, instances, events, exit_state, report):
    """Match pdb's stops to recorded events; return the number of hard mismatches."""
    problems = 0
    cursor = -1
    matched = []
    body = [s for s in stops if s["event"] != "exit"]
    for k, stop in enumerate(body):
        inst = instances[k] if k < len(instances) else None
        found = None
        for j in range(cursor + 1, len(events)):
            e = events[j]
            if e["inst"] == inst and e["event"] == stop["event"] and e["line"] == stop["line"]:
                found = j
                break
        if found is None:
            if exit_state["status"] == "never":
                return problems  # the recording was cut off; nothing more to compare
            problems += 1
            report["unmatched"].append(f"{path} :: {entry} stop {k} {json.dumps(stop)}")
            return problems
        e = events[found]
        if any(stop[key] != e[key] for key in ("depth", "locals", "value")):
            problems += 1
            report["content"].append(f"{path} :: {entry} stop {k}: pdb {json.dumps(stop)} trace {json.dumps(e)}")
        matched.append(found)
        cursor = found
    # Actions against the design's semantics.
    ended = stops and stops[-1]["event"] == "exit"
    targets = matched + ([len(events)] if ended else [])
    for k in range(len(targets) - 1):
        action = actions[k]
        expected = model_target(events, targets[k], action)
        if exit_state["status"] == "never" and len(events) in (expected, targets[k + 1]):
            continue  # the recording was cut off: the design's answer is unknown
        if expected != targets[k + 1]:
            kind = action.split(":")[0]
            key = (f"{kind} from {events[targets[k]]['event']}: pdb -> "
                   f"{describe(events, targets[k + 1], targets[k])}, design -> "
                   f"{describe(events, expected, targets[k])}")
            bucket = report["quirks"].setdefault(key, [0, None])
            bucket[0] += 1
            if bucket[1] is None:
                bucket[1] = f"{os.path.relpath(path)} {entry} at line {events[targets[k]]['line']}"
    return problems


# ----------------------------------------------------------------------------
# Shape checks and the run plan
# ----------------------------------------------------------------------------


def shape_problems(result, actions):
    problems = []
    if result.get("error") is not None:
        return [f"driver error: {result['error']}"]
    stops = result["stops"]
    if not stops:
        return ["no stops"]
    if len(stops) > 1 + len(actions):
        problems.append("more stops than actions + 1")
    for k, state in enumerate(stops):
        if list(state.keys()) != STATE_KEYS:
            problems.append(f"stop {k} keys {list(state.keys())}")
            continue
        event = state["event"]
        if event == "exit":
            if k != len(stops) - 1:
                problems.append(f"exit at stop {k} is not last")
            if state["line"] is not None or state["depth"] is not None or state["locals"] is not None:
                problems.append("exit with line/depth/locals")
            if state["status"] not in ("normal", "error", "never"):
                problems.append(f"bad exit status {state['status']}")
            if (state["status"] == "never") != (state["value"] is None):
                problems.append("exit value does not fit its status")
            continue
        if event not in ("call", "line", "return", "exception"):
            problems.append(f"bad event {event}")
        if state["status"] is not None or not isinstance(state["line"], int) or not isinstance(state["depth"], int):
            problems.append(f"stop {k} bad line/depth/status")
        if event in ("call", "line"):
            if not isinstance(state["locals"], dict) or state["value"] is not None:
                problems.append(f"stop {k} {event} needs locals and no value")
            elif not all(isinstance(v, str) for v in state["locals"].values()):
                problems.append(f"stop {k} locals not strings")
        elif state["locals"] is not None or not isinstance(state["value"], str):
            problems.append(f"stop {k} {event} needs a value and no locals")
    if len(stops) < 1 + len(actions) and stops[-1]["event"] != "exit":
        problems.append("fewer stops than actions without an exit")
    first = stops[0]
    if first["event"] != "call" or first["depth"] != 0:
        problems.append(f"first stop is not the entry call: {first}")
    return problems


def plan_runs(path, entry, events):
    lines = [e["line"] for e in events if e["event"] == "line"]
    distinct = sorted(set(lines))
    runs = [
        ["step_into"] * STEP_CAP,
        ["step_over"] * STEP_CAP,
        ["step_return"] * 60,
        ["continue"],
        ["step_into"] * 5 + ["step_return"] * 5 + ["step_over"] * 5 + ["continue"],
        ["breakpoint:1", "step_into"],
    ]
    if lines:
        last, middle, second = lines[-1], distinct[len(distinct) // 2], lines[min(1, len(lines) - 1)]
        runs.append([f"breakpoint:{middle}"] * 3 + ["continue"])
        runs.append(["step_into", "step_into", f"breakpoint:{last}", "step_over", "step_return", "continue"])
        runs.append([f"breakpoint:{second}", "step_over", f"breakpoint:{second}", "step_into"])
    seed = int(hashlib.sha256(f"{os.path.basename(path)}::{entry}".encode()).hexdigest()[:8], 16)
    rng = random.Random(seed)
    for _ in range(2):
        actions = []
        for _ in range(60):
            if rng.random() < 0.5:
                choice = rng.choices(
                    ["step_into", "step_over", "step_return", "breakpoint", "continue"],
                    weights=[0.35, 0.1, 0.2, 0.1, 0.05])[0]
            else:
                choice = rng.choice(["step_into", "step_over"])
            if choice == "breakpoint":
                choice = f"breakpoint:{rng.choice(distinct)}" if distinct else "step_into"
            actions.append(choice)
        runs.append(actions)
    return runs


def direct_exit(path, entry):
    """The exit state of calling the entry without any tracing."""
    module = driver.load_target(os.path.abspath(path))
    function, args, kwargs = driver.parse_entry_call(entry, vars(module))
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = driver._Discard()
    try:
        value = function(*args, **kwargs)
        return driver._state("exit", value=driver.bounded_repr(value, 200, 50), status="normal")
    except Exception as error:
        return driver._state("exit", value=driver.bounded_repr(error, 200, 50), status="error")
    finally:
        sys.stdout, sys.stderr = saved


def io_roundtrip(files):
    """Run the driver as a child process on a few files; compare with in-process."""
    problems = []
    for path in files:
        entry = entries_of(path)[0]
        runs = [["step_into"] * 20, ["step_over"] * 5 + ["continue"], ["breakpoint:1"]]
        request = {"file": path, "entry_call": entry, "runs": runs, "time_limit": NEVER_LIMIT if never_ends(path) else NORMAL_LIMIT}
        done = subprocess.run([sys.executable, os.path.join(HERE, "pdb_driver.py")],
                              input=json.dumps(request), capture_output=True, text=True, timeout=60)
        lines = done.stdout.splitlines()
        if done.returncode != 0 or len(lines) != len(runs):
            problems.append(f"{path}: child rc {done.returncode}, {len(lines)} lines, stderr {done.stderr[-300:]}")
            continue
        for actions, line in zip(runs, lines):
            expected = driver.run_once(path, entry, actions, request["time_limit"])
            if json.loads(line) != expected:
                problems.append(f"{path}: child output differs from in-process for {actions[:3]}...")
    bad = subprocess.run([sys.executable, os.path.join(HERE, "pdb_driver.py")], input="not json",
                         capture_output=True, text=True, timeout=60)
    if bad.returncode == 0 or "bad request" not in bad.stdout:
        problems.append("a malformed request did not produce an error line")
    return problems


def main(arguments):
    verbose = "--verbose" in arguments
    quick = "--quick" in arguments
    paths = [a for a in arguments if not a.startswith("--")]
    files = corpus_files(paths)
    if quick:
        files = files[::10]
    started = time.perf_counter()
    report = {"unmatched": [], "content": [], "quirks": {}}
    failures = []
    totals = {"files": 0, "entries": 0, "runs": 0, "stops": 0, "never": 0, "foreign": 0}
    slowest = (0.0, None)
    slowest_run = (0.0, None)
    for path in files:
        file_started = time.perf_counter()
        totals["files"] += 1
        is_never = never_ends(path)
        totals["never"] += is_never
        limit = NEVER_LIMIT if is_never else NORMAL_LIMIT
        entries = entries_of(path)
        if not 1 <= len(entries) <= 3:
            failures.append(f"{path}: {len(entries)} entry lines")
        for entry in entries:
            totals["entries"] += 1
            try:
                events, exit_state = record_trace(path, entry)
                expected_exit = None if is_never else direct_exit(path, entry)
            except Exception as error:
                failures.append(f"{path} :: {entry}: cannot record: {error!r}")
                continue
            if is_never != (exit_state["status"] == "never"):
                failures.append(f"{path} :: {entry}: recorded exit {exit_state['status']}")
            for actions in plan_runs(path, entry, events):
                totals["runs"] += 1
                run_started = time.perf_counter()
                result, instances, foreign = run_with_instances(path, entry, actions, limit)
                run_seconds = time.perf_counter() - run_started
                if not is_never and run_seconds > slowest_run[0]:
                    slowest_run = (run_seconds, f"{os.path.relpath(path)} {entry} {len(actions)} actions")
                totals["foreign"] += foreign
                totals["stops"] += len(result["stops"])
                label = f"{os.path.relpath(path)} :: {entry} :: {actions[:4]}{'...' if len(actions) > 4 else ''}"
                for problem in shape_problems(result, actions):
                    failures.append(f"{label}: {problem}")
                stops = result["stops"]
                if not stops or result["error"]:
                    continue
                final = stops[-1]
                if final["event"] == "exit":
                    if is_never and final["status"] != "never" and actions == ["continue"]:
                        failures.append(f"{label}: never-ending program ended {final['status']}")
                    if not is_never and final != expected_exit:
                        failures.append(f"{label}: exit {final} but direct call gives {expected_exit}")
                elif is_never and actions == ["continue"]:
                    failures.append(f"{label}: continue did not end in exit never")
                hard = compare_with_trace(path, entry, actions, stops, instances, events, exit_state, report)
                if hard:
                    failures.append(f"{label}: {hard} stop(s) differ from the settrace recording")
        seconds = time.perf_counter() - file_started
        if seconds > slowest[0]:
            slowest = (seconds, os.path.relpath(path))
    io_problems = io_roundtrip([f for f in files if "hand" in f][:3] or files[:2])
    failures += io_problems
    elapsed = time.perf_counter() - started
    quirk_count = sum(v[0] for v in report["quirks"].values())
    if verbose or failures:
        for line in failures[:50]:
            print("FAIL", line)
        for line in report["content"][:10] + report["unmatched"][:10]:
            print("DETAIL", line)
    if verbose:
        print("Where pdb departs from the design's tree semantics (action from event: pdb -> design):")
        for key, (count, example) in sorted(report["quirks"].items(), key=lambda kv: -kv[1][0]):
            print(f"  {count:6d}  {key}   e.g. {example}")
    print(
        f"selftest: {totals['files']} programs ({totals['never']} never-ending), {totals['entries']} entry calls, "
        f"{totals['runs']} runs, {totals['stops']} stops, {len(failures)} failures, "
        f"{quirk_count} design-vs-pdb differences in {len(report['quirks'])} kinds, "
        f"{totals['foreign']} foreign stops suppressed, {elapsed:.1f}s "
        f"(slowest program {slowest[1]} {slowest[0]:.2f}s, slowest terminating run "
        f"{slowest_run[0]:.2f}s: {slowest_run[1]})"
    )
    return 1 if failures else 0
