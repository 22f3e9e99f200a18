"""Tests of the training program generator and the CruxEval guard.

    cd <repo> && python3 -m unittest discover -s inference/training/tests -v

Standard library only; about half a minute on one core.
"""

import ast
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TRAINING = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(TRAINING))
sys.path.insert(0, TRAINING)
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts

import cruxeval_guard  # noqa: E402
import programs  # noqa: E402

SCRIPT = os.path.join(TRAINING, "programs.py")
GUARD = os.path.join(TRAINING, "cruxeval_guard.py")
CRUXEVAL = os.environ.get("NDB_CRUXEVAL_DEV",
                          os.path.join(REPO, "..", "shared", "data", "cruxeval-dev.jsonl"))
SEED = 20250101
MAX_EVENTS = 1500

_CACHE = {}


def corpus(n):
    """The first n programs of SEED, as dicts (generated once per run)."""
    got = _CACHE.get("corpus", [])
    if len(got) < n:
        got = [{"id": pid, "source": src, "calls": calls, "family": fam}
               for pid, src, calls, fam in programs.generate(n, SEED)]
        _CACHE["corpus"] = got
    return got[:n]


def run_cli(args, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, SCRIPT] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=full_env, timeout=120, check=True).stdout


# The runner executes programs in a child process under a line-event budget
# (as the Rust tracer does), and reports how each entry call ended.
RUNNER = r'''
import json, sys
MAX = int(sys.argv[1])
class Budget(BaseException):
    pass
out = []
for line in sys.stdin:
    prog = json.loads(line)
    ns = {"__name__": "generated"}
    try:
        exec(compile(prog["source"], "<gen>", "exec"), ns)
    except BaseException as e:
        out.append([prog["id"], "load", type(e).__name__, str(e)[:200]])
        continue
    for call in prog["calls"]:
        count = [0]
        def tracer(frame, event, arg):
            if frame.f_code.co_filename == "<gen>":
                count[0] += 1
                if count[0] > MAX:
                    raise Budget()
            return tracer
        sys.settrace(tracer)
        try:
            eval(compile(call, "<call>", "eval"), ns)
            status, name, msg = "ok", "", ""
        except Budget:
            status, name, msg = "budget", "", ""
        except RecursionError as e:
            status, name, msg = "recursion", "RecursionError", ""
        except BaseException as e:
            status, name, msg = "raised", type(e).__name__, str(e)[:200]
        finally:
            sys.settrace(None)
        out.append([prog["id"], status, name, msg])
print(json.dumps(out))
'''

# Exceptions a generated program raises on purpose (risky indexing, lookups,
# parsing, a raise under a condition with one of the generator's messages).
DELIBERATE = ("IndexError", "KeyError", "ValueError", "ZeroDivisionError")


def deliberate(name, msg):
    if name in DELIBERATE:
        return True
    return any(m.strip("'") in msg for m in programs.EXC_MSGS) or msg.split(":")[0] in (
        "bad", "invalid", "unexpected", "too big", "no")


def features(source):
    """Which kinds of code a program uses, from its syntax tree."""
    tree = ast.parse(source)
    found = set()
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    str_methods = {"split", "join", "replace", "strip", "find", "count", "upper", "lower",
                   "startswith", "endswith", "isdigit", "isalpha", "title", "partition"}
    list_methods = {"append", "pop", "insert", "remove", "sort", "reverse", "index", "extend"}
    dict_methods = {"get", "setdefault", "items", "keys", "values", "update"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr in str_methods:
                found.add("str")
            if node.attr in list_methods:
                found.add("list")
            if node.attr in dict_methods:
                found.add("dict")
            if node.attr in ("add", "discard"):
                found.add("set")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "set":
                found.add("set")
            if node.func.id in ("abs", "divmod"):
                found.add("int")
        elif isinstance(node, (ast.Set, ast.SetComp)):
            found.add("set")
        elif isinstance(node, (ast.Dict, ast.DictComp)):
            found.add("dict")
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            found.add("comprehension")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Mod,
                                                                  ast.Pow)):
            found.add("int")
        elif isinstance(node, ast.Try):
            found.add("try")
        elif isinstance(node, ast.While):
            found.add("while")
        elif isinstance(node, ast.For):
            found.add("for")
        elif isinstance(node, ast.Raise):
            found.add("raise")
        elif isinstance(node, ast.ClassDef):
            found.add("class")
        elif isinstance(node, ast.JoinedStr):
            found.add("fstring")
        elif isinstance(node, (ast.Break, ast.Continue)):
            found.add("break/continue")
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
            found.add("unpack")
    for name, fn in funcs.items():
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == name:
                    found.add("recursion")
                elif node.func.id in funcs:
                    found.add("helper")
    return found


class GeneratorCli(unittest.TestCase):
    def test_json_lines_and_ids(self):
        out = run_cli(["--count", "20", "--seed", "7", "--first-id", "5"])
        rows = [json.loads(line) for line in out.decode().splitlines()]
        self.assertEqual(len(rows), 20)
        for k, row in enumerate(rows):
            self.assertEqual(sorted(row), ["calls", "family", "id", "source"])
            self.assertEqual(row["id"], "gen-7-%06d" % (k + 5))
            self.assertIn(row["family"], programs.FAMILY_NAMES)
            self.assertTrue(2 <= len(row["calls"]) <= 4, row["calls"])

    def test_deterministic_across_runs_and_hash_seeds(self):
        a = run_cli(["--count", "300", "--seed", "11"], {"PYTHONHASHSEED": "0"})
        b = run_cli(["--count", "300", "--seed", "11"], {"PYTHONHASHSEED": "12345"})
        c = run_cli(["--count", "300", "--seed", "12"], {"PYTHONHASHSEED": "0"})
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        # a program depends only on (seed, id): a slice regenerates the same lines
        tail = run_cli(["--count", "50", "--seed", "11", "--first-id", "250"])
        self.assertEqual(tail.splitlines(), a.splitlines()[250:])

    def test_out_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.jsonl")
            run_cli(["--count", "30", "--seed", "3", "--out", path])
            with open(path, "rb") as fh:
                data = fh.read()
        self.assertEqual(data, run_cli(["--count", "30", "--seed", "3"]))

    def test_throughput(self):
        n = 2000
        start = time.perf_counter()
        for _ in programs.generate(n, 99):
            pass
        rate = n / (time.perf_counter() - start)
        print("\n  generator throughput: %.0f programs/s" % rate, file=sys.stderr)
        # ~2,000/s is the aim on an idle core; the bound leaves room for a busy machine
        self.assertGreater(rate, 400)


class GeneratedPrograms(unittest.TestCase):
    def test_sources_compile(self):
        for prog in corpus(2000):
            try:
                compile(prog["source"], prog["id"], "exec")
                # no syntax newer than Python 3.8 (the oldest interpreter traced)
                ast.parse(prog["source"], feature_version=(3, 8))
            except SyntaxError as error:
                self.fail("%s does not compile: %s\n%s" % (prog["id"], error, prog["source"]))

    def test_size_and_shape(self):
        lines = []
        for prog in corpus(2000):
            tree = ast.parse(prog["source"])
            funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
            self.assertTrue(funcs, prog["id"])
            entry = funcs[-1]
            self.assertTrue(1 <= len(entry.args.args) <= 4, prog["id"])
            lines.append(entry.end_lineno - entry.lineno + 1)
        lines.sort()
        self.assertGreaterEqual(lines[len(lines) // 2], 4)
        self.assertLessEqual(lines[int(len(lines) * 0.95)], 24)
        share_f = sum(1 for p in corpus(2000) if p["calls"][0].startswith("f(")) / 2000
        self.assertTrue(0.5 < share_f < 0.9, share_f)

    def test_calls_call_a_defined_function_with_literals(self):
        for prog in corpus(2000):
            tree = ast.parse(prog["source"])
            defined = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
            self.assertTrue(2 <= len(prog["calls"]) <= 4, prog["id"])
            self.assertEqual(len(set(prog["calls"])), len(prog["calls"]), prog["id"])
            for call in prog["calls"]:
                node = ast.parse(call, mode="eval").body
                self.assertIsInstance(node, ast.Call, call)
                self.assertIsInstance(node.func, ast.Name, call)
                self.assertIn(node.func.id, defined, "%s: %s" % (prog["id"], call))
                fn = defined[node.func.id]
                self.assertEqual(len(node.args), len(fn.args.args), "%s: %s" % (prog["id"], call))
                for arg in node.args:
                    ast.literal_eval(arg)  # plain literal text

    def test_sample_runs_cleanly(self):
        sample = corpus(2000)[::2000 // 300][:300]
        text = "".join(json.dumps(p) + "\n" for p in sample)
        proc = subprocess.run([sys.executable, "-c", RUNNER, str(MAX_EVENTS)],
                              input=text.encode(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr.decode()[-2000:])
        results = json.loads(proc.stdout)
        counts = collections.Counter()
        accidents = []
        for pid, status, name, msg in results:
            if status == "raised":
                status = "deliberate" if deliberate(name, msg) else "accident"
                if status == "accident":
                    accidents.append((pid, name, msg))
            counts[status] += 1
        calls = sum(counts.values())
        finished = counts["ok"] + counts["deliberate"] + counts["accident"]
        print("\n  %d calls of 300 programs: %s" % (calls, dict(counts)), file=sys.stderr)
        self.assertEqual(counts["load"], 0)
        self.assertGreaterEqual(finished / calls, 0.9)
        self.assertGreaterEqual((counts["ok"] + counts["deliberate"]) / calls, 0.9)
        self.assertLessEqual(len(accidents), 0.03 * calls, accidents[:5])
        self.assertGreaterEqual(counts["ok"] / calls, 0.75)

    def test_diversity(self):
        progs = corpus(2000)
        distinct = len(set(cruxeval_guard.normalise(p["source"]) for p in progs))
        families = collections.Counter(p["family"] for p in progs)
        found = collections.Counter()
        for p in progs:
            found.update(features(p["source"]))
        print("\n  distinct normalised sources: %d of %d; %d families; features %s"
              % (distinct, len(progs), len(families), dict(sorted(found.items()))),
              file=sys.stderr)
        self.assertGreaterEqual(distinct / len(progs), 0.8)
        self.assertGreaterEqual(len(families), 15)
        for feature in ("str", "list", "dict", "set", "int", "try", "while", "for",
                        "recursion", "helper", "comprehension", "unpack", "raise", "class",
                        "break/continue", "fstring"):
            self.assertGreaterEqual(found[feature], 10, feature)

    def test_argument_types_vary(self):
        kinds = collections.Counter()
        for prog in corpus(1000):
            for arg in ast.parse(prog["calls"][0], mode="eval").body.args:
                value = ast.literal_eval(arg)
                kinds[type(value).__name__] += 1
                if isinstance(value, list) and value:
                    kinds["list of " + type(value[0]).__name__] += 1
        for kind in ("int", "str", "list", "dict", "list of int", "list of str"):
            self.assertGreaterEqual(kinds[kind], 30, (kind, kinds))


class Normaliser(unittest.TestCase):
    A = '''
def f(text, n):
    """Count things."""
    out = []
    for ch in text:
        if ch.isdigit():
            out.append(int(ch) * n)
    return len(out), sum(out)
'''
    B = '''
def count_digits(s, k):
    result = []
    for c in s:
        if c.isdigit():
            result.append(int(c) * k)
    return len(result), sum(result)
'''
    C = '''
def f(text, n):
    out = []
    for ch in text:
        if ch.isalpha():
            out.append(int(ch) * n)
    return len(out), sum(out)
'''

    def test_renamed_copies_normalise_alike(self):
        na, nb = cruxeval_guard.normalise(self.A), cruxeval_guard.normalise(self.B)
        self.assertEqual(na, nb)
        self.assertNotIn("Count things", na)
        self.assertIn("isdigit", na)  # methods and builtins keep their names
        self.assertIn("len(", na)

    def test_distinct_functions_differ(self):
        self.assertNotEqual(cruxeval_guard.normalise(self.A), cruxeval_guard.normalise(self.C))
        self.assertNotEqual(cruxeval_guard.normalise("def f(a):\n    return a + 1\n"),
                            cruxeval_guard.normalise("def f(a):\n    return a - 1\n"))

    def test_unparsable_falls_back_to_collapsed_text(self):
        self.assertEqual(cruxeval_guard.normalise("def f(:\n   return  1"), "def f(: return 1")


class Guard(unittest.TestCase):
    """The guard on a made-up problem set (never CruxEval's own text)."""

    PROBLEMS = [
        {"id": "made-up/0", "code": Normaliser.A, "input": "", "output": ""},
        {"id": "made-up/1", "code": "def f(xs):\n    return [x * 3 for x in xs if x]\n",
         "input": "", "output": ""},
    ]
    CONTAINS = '''
def helper(v):
    return v - 1


def g(word, times, extra):
    total = helper(times)
    acc = []
    for letter in word:
        if letter.isdigit():
            acc.append(int(letter) * total)
    return len(acc), sum(acc)
'''

    def index(self, tmp):
        path = os.path.join(tmp, "problems.jsonl")
        with open(path, "w") as fh:
            for row in self.PROBLEMS:
                fh.write(json.dumps(row) + "\n")
        return path

    def test_index_and_check(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.index(tmp)
            codes = cruxeval_guard.load_cruxeval(path)
            index = cruxeval_guard.load_index(path)
        self.assertEqual(len(codes), 2)
        self.assertIn(cruxeval_guard.normalise(Normaliser.B), codes)
        self.assertEqual(index.check(Normaliser.B), ("equal", "made-up/0"))
        self.assertEqual(index.check("def h(a):\n    return [b * 3 for b in a if b]\n"),
                         ("equal", "made-up/1"))
        self.assertEqual(index.check("def g(k):\n    return k\n\n\n" + Normaliser.B)[0],
                         "equal-function")
        self.assertEqual(index.check(self.CONTAINS), ("contains-body", "made-up/0"))
        self.assertIsNone(index.check(Normaliser.C))
        # a one-line body inside a longer function is not a copy
        self.assertIsNone(index.check(
            "def f(xs):\n    y = len(xs)\n    return [x * 3 for x in xs if x]\n"))

    def test_cli_exit_codes(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.index(tmp)
            good = os.path.join(tmp, "good.jsonl")
            bad = os.path.join(tmp, "bad.jsonl")
            with open(good, "w") as fh:
                fh.write(json.dumps({"id": "p0", "source": Normaliser.C}) + "\n")
            with open(bad, "w") as fh:
                fh.write(json.dumps({"id": "p0", "source": Normaliser.C}) + "\n")
                fh.write(json.dumps({"id": "p1", "source": self.CONTAINS}) + "\n")
            ok = subprocess.run([sys.executable, GUARD, "--cruxeval", path, good],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            no = subprocess.run([sys.executable, GUARD, "--cruxeval", path, good, bad],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertEqual(len(ok.stdout.decode().strip().splitlines()), 1)
        self.assertEqual(no.returncode, 1)
        self.assertIn("p1: contains-body CruxEval problem made-up/0", no.stdout.decode())
        self.assertNotIn("p0", no.stdout.decode())


class NoCruxEval(unittest.TestCase):
    def test_generated_programs_match_no_cruxeval_problem(self):
        if not os.path.isfile(CRUXEVAL):
            self.skipTest("no CruxEval dev set at %s (set NDB_CRUXEVAL_DEV)" % CRUXEVAL)
        index = cruxeval_guard.load_index(CRUXEVAL)
        hits = []
        for prog in corpus(5000):
            hit = index.check(prog["source"])
            if hit is not None:
                hits.append((prog["id"],) + hit)
        self.assertEqual(hits, [])


if __name__ == "__main__":
    unittest.main()
