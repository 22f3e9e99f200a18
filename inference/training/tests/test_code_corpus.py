"""Tests of code_corpus.py: real code with its own inputs as a corpus.

    cd <repo> && python3 -m unittest discover -s inference/training/tests -v

The fixture package `fixtures/shopkit` is made up; one test reads the real
`textwrap` module and its tests from this interpreter's standard library.
"""

import ast
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TRAINING = os.path.dirname(HERE)
SCRIPT = os.path.join(TRAINING, "code_corpus.py")
SHOPKIT = os.path.join(HERE, "fixtures", "shopkit")
sys.path.insert(0, TRAINING)
sys.dont_write_bytecode = True

import code_corpus  # noqa: E402


def run_script(*args):
    done = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          timeout=300, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def call_in(source, call):
    """Runs a program's entry call in a fresh namespace, as the tracer does."""
    namespace = {"__name__": "program"}
    exec(compile(source, "program.py", "exec"), namespace)
    return eval(call, namespace)


class FixturePackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows, cls.stderr = run_script("--dir", SHOPKIT, "--variants", "0")
        cls.by_id = {row["id"]: row for row in cls.rows}

    def test_self_contained_functions_with_literal_calls_become_programs(self):
        self.assertEqual(sorted(self.by_id), [
            "shopkit:shopkit.cart.total",
            "shopkit:shopkit.text.shout",
            "shopkit:shopkit.text.slugify",
        ])
        self.assertIn("3 programs", self.stderr)

    def test_calls_come_from_doctests_and_tests_through_imports(self):
        self.assertEqual(self.by_id["shopkit:shopkit.text.slugify"]["calls"], [
            "slugify('Hello, World!')", "slugify('a b c d', limit=2)", "slugify('Big  Sale')"])
        # `cart.total(make_prices(3))` has a non-literal argument: not a call.
        self.assertEqual(sorted(self.by_id["shopkit:shopkit.cart.total"]["calls"]),
                         ["total([1, 2, 3])", "total([10, 20], discount=10)"])
        self.assertEqual(self.by_id["shopkit:shopkit.text.shout"]["calls"], ["shout('hi')"])

    def test_programs_carry_what_they_need_and_run(self):
        slug = self.by_id["shopkit:shopkit.text.slugify"]["source"]
        for needed in ("import re", "SEPARATOR = '-'", "_NON_WORD = re.compile", "def _clean("):
            self.assertIn(needed, slug)
        self.assertNotIn("def shout", slug)
        expected = {"slugify('Hello, World!')": "hello-world", "slugify('a b c d', limit=2)": "a-b",
                    "slugify('Big  Sale')": "big-sale", "total([1, 2, 3])": 6,
                    "total([10, 20], discount=10)": 27.0, "shout('hi')": "HI!"}
        for row in self.rows:
            for call in row["calls"]:
                self.assertEqual(call_in(row["source"], call), expected[call], call)

    def test_docstrings_that_spell_out_answers_are_dropped(self):
        for row in self.rows:
            self.assertNotIn(">>>", row["source"])
            self.assertNotIn('"""', row["source"])

    def test_unsafe_relative_unresolved_test_and_argumentless_code_is_left_out(self):
        ids = " ".join(self.by_id)
        for absent in ("read_title", "banner", "needs_missing", "no_arguments", "make_prices"):
            self.assertNotIn(absent, ids)

    def test_variants_perturb_literals_deterministically(self):
        rows, _ = run_script("--dir", SHOPKIT, "--variants", "3", "--seed", "7")
        again, _ = run_script("--dir", SHOPKIT, "--variants", "3", "--seed", "7")
        other, _ = run_script("--dir", SHOPKIT, "--variants", "3", "--seed", "8")
        self.assertEqual(rows, again)
        self.assertNotEqual(rows, other)
        total = {row["id"]: row for row in rows}["shopkit:shopkit.cart.total"]["calls"]
        self.assertGreater(len(total), 2)
        for call in total:
            node = ast.parse(call, mode="eval").body
            self.assertEqual(ast.unparse(node.func), "total")
            for arg in node.args + [k.value for k in node.keywords]:
                ast.literal_eval(arg)

    def test_set_arguments_are_written_the_same_whatever_the_hash_seed(self):
        self.assertEqual(code_corpus.literal({"b", "a", "c"}), "{'a', 'b', 'c'}")
        self.assertEqual(code_corpus.literal(([1], (2,), {"k": frozenset({"y", "x"})})),
                         "([1], (2,), {'k': frozenset({'x', 'y'})})")
        script = ("import random, code_corpus; print(code_corpus.perturb_call("
                  "\"f('leetcode', {'code', 'leet', 'a', 'b', 'c'})\", random.Random(1)))")
        runs = set()
        for seed in ("1", "2", "3", "4"):
            env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=TRAINING)
            runs.add(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                    text=True, check=True).stdout)
        self.assertEqual(len(runs), 1, runs)

    def test_is_safe_rejects_the_outside_world(self):
        def safe(src):
            return code_corpus.is_safe(ast.parse(src).body[0])
        self.assertTrue(safe("def f(p):\n    return os.path.join(p, 'x')"))
        self.assertFalse(safe("def f(p):\n    os.remove(p)"))
        self.assertFalse(safe("import shutil"))
        self.assertFalse(safe("def f(p):\n    return open(p).read()"))
        self.assertFalse(safe("def f():\n    return sys.modules"))
        self.assertFalse(safe("def f(x):\n    return x.__globals__"))


class StandardLibrary(unittest.TestCase):
    def test_textwrap_and_its_tests_give_a_dedent_program_that_runs(self):
        stdlib = sysconfig.get_paths()["stdlib"]
        tests = os.path.join(stdlib, "test", "test_textwrap.py")
        if not os.path.exists(tests):
            self.skipTest("this interpreter ships without its test suite")
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(os.path.join(stdlib, "textwrap.py"), tmp)
            os.mkdir(os.path.join(tmp, "test"))
            shutil.copy(tests, os.path.join(tmp, "test"))
            rows, _ = run_script("--dir", tmp, "--variants", "1")
        dedent = {row["id"]: row for row in rows}.get(os.path.basename(tmp) + ":textwrap.dedent")
        self.assertIsNotNone(dedent, [row["id"] for row in rows])
        self.assertGreaterEqual(len(dedent["calls"]), 2)  # a call of its tests and a variant
        import textwrap
        for call in dedent["calls"][:20]:
            self.assertEqual(call_in(dedent["source"], call), eval(call, vars(textwrap)), call)


if __name__ == "__main__":
    unittest.main()
