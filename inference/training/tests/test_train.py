"""train.py's long-run machinery, on a tiny Llama from scratch and a small
made-up dataset (PyTorch and tokenizers; a few seconds a run):

- a run stopped by its session budget, or by SIGTERM at any moment, and
  run again ends bit for bit where an uninterrupted run ends;
- a checkpoint refuses other data or other settings, and a finished run goes
  on with `--extend` (a longer schedule) and `--adopt-data` (new data);
- two processes under torchrun (DDP, gloo) train what one process that
  accumulates their batches trains;
- the added tokens of SmolLM2 start from distinct words.
"""

import gzip
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import types
import unittest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import smollm2  # noqa: E402

TRAIN = os.path.join(HERE, "train.py")


def write_dataset(folder, programs=48):
    """Records shaped like `ndb data generate`'s: a source, an entry state,
    and two predicted states."""
    os.makedirs(folder, exist_ok=True)
    for split, ids in (("train", range(programs)), ("heldout", range(programs, programs + 6))):
        with gzip.open(os.path.join(folder, "%s-00000.jsonl.gz" % split), "wt", encoding="utf-8") as handle:
            for i in ids:
                source = "def f(x):\n    y = x + %d\n    return y * 2\n" % (i % 7)
                context = ("<|trace_context_start|>%s<|trace_end|><|frame_sep|><|call_sep|><|src_sep|>"
                           "def f(x):<|arg_sep|>x = %d<|action_sep|><|step_into|>" % (source, i))
                first = "<|line_sep|><|src_sep|>    y = x + %d<|arg_sep|>x = %d" % (i % 7, i)
                second = "<|return_sep|><|src_sep|>    return y * 2<|arg_sep|>%d" % ((i + i % 7) * 2)
                record = {"program": "p%d" % i, "call": "f(%d)" % i, "direction": "forward", "entry": True,
                          "pieces": [[context, None], [first, "step_into"],
                                     ["<|action_sep|><|step_return|>", None], [second, "step_return"]]}
                handle.write(json.dumps(record) + "\n")


def write_tokenizer(data, path):
    import tokenizer

    tokenizer.train(data, 300).save(path)


def train_command(data, out, tokenizer_path, *extra):
    return [sys.executable, "-B", TRAIN, "--data", data, "--out", out, "--init", "scratch",
            "--tokenizer", tokenizer_path, "--layers", "1", "--hidden", "32", "--heads", "2",
            "--seq-len", "128", "--batch-tokens", "256", "--eval-records", "6", "--threads", "1",
            "--device", "cpu", "--no-export", "--checkpoint-minutes", "1000", *extra]


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode:
        raise AssertionError("%s failed (%d):\n%s" % (command[2], result.returncode, result.stderr))
    return result


def trained(out):
    import torch

    return torch.load(os.path.join(out, "checkpoint.pt"), weights_only=False)


def losses(out):
    with open(os.path.join(out, "log.jsonl"), encoding="utf-8") as handle:
        return [(entry["step"], entry["loss"]) for entry in map(json.loads, handle) if "loss" in entry]


class Resume(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.data = os.path.join(cls.tmp.name, "data")
        write_dataset(cls.data)
        cls.tokenizer = os.path.join(cls.tmp.name, "tokenizer.json")
        write_tokenizer(cls.data, cls.tokenizer)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def out(self, name):
        return os.path.join(self.tmp.name, name)

    def assert_same_training(self, a, b, exact=True):
        import torch

        first, second = trained(a), trained(b)
        self.assertEqual(first["state"]["step"], second["state"]["step"])
        self.assertEqual(first["state"]["batches"], second["state"]["batches"])
        self.assertEqual(sorted(first["trainable"]), sorted(second["trainable"]))
        for name, tensor in first["trainable"].items():
            other = second["trainable"][name]
            if exact:
                self.assertTrue(torch.equal(tensor, other), name)
            else:
                torch.testing.assert_close(tensor, other, rtol=1e-4, atol=1e-5, msg=name)
        if exact:
            for x, y in zip(first["optimizer"]["state"].values(), second["optimizer"]["state"].values()):
                self.assertTrue(torch.equal(x["exp_avg"], y["exp_avg"]))
                self.assertTrue(torch.equal(x["exp_avg_sq"], y["exp_avg_sq"]))
            self.assertEqual(losses(a), losses(b))

    def test_a_run_stopped_by_its_session_budget_resumes_exactly(self):
        whole = self.out("whole")
        run(train_command(self.data, whole, self.tokenizer, "--max-steps", "12", "--eval-every", "5"))
        parts = self.out("parts")
        command = train_command(self.data, parts, self.tokenizer, "--max-steps", "12", "--eval-every", "5")
        first = run(command + ["--session-steps", "5"])
        self.assertIn("stopped at step 5", first.stderr)
        self.assertEqual(trained(parts)["state"]["step"], 5)
        second = run(command + ["--session-steps", "4"])
        self.assertIn("resumed from step 5", second.stderr)
        third = run(command)
        self.assertIn("resumed from step 9", third.stderr)
        self.assert_same_training(whole, parts)

    def test_a_run_killed_by_sigterm_at_any_moment_resumes_exactly(self):
        steps = "300"
        whole = self.out("whole-long")
        run(train_command(self.data, whole, self.tokenizer, "--max-steps", steps, "--eval-every", "1000"))
        killed = self.out("killed")
        command = train_command(self.data, killed, self.tokenizer, "--max-steps", steps, "--eval-every", "1000")
        process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        log = os.path.join(killed, "log.jsonl")
        deadline = time.time() + 120
        while time.time() < deadline and process.poll() is None:
            if os.path.exists(log) and len(losses(killed)) >= 3:
                break
            time.sleep(0.01)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
        self.assertEqual(process.returncode, 0, stderr)
        self.assertIn("stopped at step", stderr)
        stopped = trained(killed)["state"]["step"]
        self.assertLess(stopped, int(steps))
        resumed = run(command)
        self.assertIn("resumed from step %d" % stopped, resumed.stderr)
        self.assert_same_training(whole, killed)

    def test_a_checkpoint_refuses_other_data_and_other_settings(self):
        out = self.out("guarded")
        run(train_command(self.data, out, self.tokenizer, "--max-steps", "2", "--eval-every", "5"))
        other = self.out("other-data")
        write_dataset(other, programs=40)
        refused = subprocess.run(train_command(other, out, self.tokenizer, "--max-steps", "2"),
                                 capture_output=True, text=True)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("other data", refused.stderr)
        refused = subprocess.run(train_command(self.data, out, self.tokenizer, "--max-steps", "2",
                                               "--lr", "0.5"), capture_output=True, text=True)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("other settings (lr)", refused.stderr)

    def test_a_finished_run_goes_on_with_extend_on_new_data(self):
        import train

        out = self.out("extended")
        run(train_command(self.data, out, self.tokenizer, "--max-steps", "24", "--eval-every", "100"))
        self.assertEqual(trained(out)["state"]["step"], 24)
        longer = train_command(self.data, out, self.tokenizer, "--max-steps", "30", "--eval-every", "100")
        refused = subprocess.run(longer, capture_output=True, text=True)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("other settings (max_steps)", refused.stderr)
        refused = subprocess.run(train_command(self.data, out, self.tokenizer, "--max-steps", "20", "--extend"),
                                 capture_output=True, text=True)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("beyond the checkpoint's step 24", refused.stderr)

        other = self.out("extended-data")
        write_dataset(other, programs=40)
        resumed = run(train_command(other, out, self.tokenizer, "--max-steps", "30", "--eval-every", "100",
                                    "--extend", "--adopt-data"))
        self.assertIn("resumed from step 24", resumed.stderr)
        checkpoint = trained(out)
        self.assertEqual(checkpoint["state"]["step"], 30)
        self.assertEqual(checkpoint["options"]["max_steps"], 30)
        with open(os.path.join(out, "log.jsonl"), encoding="utf-8") as handle:
            entries = [json.loads(line) for line in handle]
        self.assertIn({"extended": {"step": 24, "from_max_steps": 24, "to_max_steps": 30}}, entries)
        # The adopted model is scored on the new held-out records before
        # it trains on: the baseline the new best must beat.
        baseline = [entry for entry in entries if entry.get("adopted_baseline")]
        self.assertEqual([entry["step"] for entry in baseline], [24])
        self.assertIn("heldout", baseline[0])
        # Steps 25 to 30 follow the 30-step cosine from where the run stood.
        schedule = types.SimpleNamespace(lr=checkpoint["options"]["lr"])
        rates = {entry["step"]: entry["lr"] for entry in entries if "lr" in entry}
        for step in range(25, 31):
            self.assertAlmostEqual(rates[step], train.learning_rate(schedule, (step - 1) / 30, step - 1))
        self.assertNotAlmostEqual(rates[25], train.learning_rate(schedule, 24 / 24, 24))
        # Going on again needs no flag: the checkpoint holds the new length.
        again = run(train_command(other, out, self.tokenizer, "--max-steps", "30", "--eval-every", "100"))
        self.assertNotIn("other settings", again.stderr)

    def test_a_run_carried_elsewhere_goes_on_from_its_weights_and_data_position(self):
        import torch
        import train

        whole = self.out("carry-whole")
        run(train_command(self.data, whole, self.tokenizer, "--max-steps", "40", "--eval-every", "100"))
        first = self.out("carry-first")
        run(train_command(self.data, first, self.tokenizer, "--max-steps", "40", "--eval-every", "100",
                          "--session-steps", "25"))
        carry = os.path.join(first, "carry")
        self.assertEqual(sorted(os.listdir(carry)), ["carry.json", "trainable.safetensors"])
        # Another machine: only the carry folder travels (no checkpoint.pt).
        elsewhere = self.out("carry-elsewhere")
        carried = run(train_command(self.data, elsewhere, self.tokenizer, "--max-steps", "40",
                                    "--eval-every", "100", "--carry-from", carry))
        self.assertIn("carried in from %s at step 25" % carry, carried.stderr)
        end = trained(elsewhere)
        self.assertEqual(end["state"]["step"], 40)
        self.assertEqual(end["state"]["batches"], trained(whole)["state"]["batches"])
        self.assertEqual(end["state"]["tokens"], trained(whole)["state"]["tokens"])
        # Step 26's loss is read before its update, with the weights of step
        # 25 on the batch of step 26: exactly the uninterrupted run's.
        self.assertEqual(dict(losses(elsewhere))[26], dict(losses(whole))[26])
        # After it the optimiser's fresh moments and the second warm-up
        # make the runs differ, and the log says why.
        with open(os.path.join(elsewhere, "log.jsonl"), encoding="utf-8") as handle:
            entries = [json.loads(line) for line in handle]
        self.assertEqual([entry["carried"]["step"] for entry in entries if "carried" in entry], [25])
        rates = {entry["step"]: entry["lr"] for entry in entries if "lr" in entry}
        schedule = types.SimpleNamespace(lr=end["options"]["lr"])
        self.assertAlmostEqual(rates[26], train.learning_rate(schedule, 25 / 40, 25, rewarm_from=25))
        self.assertLess(rates[26], train.learning_rate(schedule, 25 / 40, 25))
        self.assertFalse(all(torch.equal(a, trained(whole)["trainable"][name])
                             for name, a in end["trainable"].items()))
        refused = subprocess.run(train_command(self.data, self.out("carry-refused"), self.tokenizer,
                                               "--max-steps", "40", "--lr", "0.5", "--carry-from", carry),
                                 capture_output=True, text=True)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("other settings (lr)", refused.stderr)

    def test_two_processes_under_torchrun_train_what_one_accumulating_process_trains(self):
        one = self.out("one-process")
        run(train_command(self.data, one, self.tokenizer, "--max-steps", "4", "--eval-every", "100",
                          "--accumulate", "2"))
        two = self.out("two-processes")
        command = train_command(self.data, two, self.tokenizer, "--max-steps", "4", "--eval-every", "100")
        torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
        environment = dict(os.environ, OMP_NUM_THREADS="1")
        run(torchrun + command[2:], env=environment)
        self.assertEqual(trained(two)["world"], 2)
        self.assertEqual(trained(two)["state"]["tokens"], trained(one)["state"]["tokens"])
        # The same batches and the same mean gradient; only the order of
        # the float additions differs.
        self.assert_same_training(one, two, exact=False)


class TokenInit(unittest.TestCase):
    def test_every_special_token_has_its_words(self):
        self.assertEqual(sorted(smollm2.TOKEN_WORDS), sorted(smollm2.special_tokens()))
        words = list(smollm2.TOKEN_WORDS.values())
        self.assertEqual(len(set(words)), len(words))

    def test_the_action_tokens_start_distinct(self):
        import numpy as np

        config, weights, tokenizer_json, base = smollm2.load(token_init="words")
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_str(tokenizer_json)
        rows = weights["model.embed_tokens.weight"]
        names = ["<|step_into|>", "<|step_over|>", "<|step_return|>", "<|breakpoint|>", "<|continue|>"]
        vectors = np.stack([rows[tokenizer.token_to_id(name)] for name in names])
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        cosines = vectors @ vectors.T
        off = cosines[~np.eye(len(names), dtype=bool)]
        self.assertLess(off.max(), 0.5, cosines)
        # The old start, for contrast: the spelled-out pieces.
        _, weights, _, _ = smollm2.load(token_init="pieces")
        rows = weights["model.embed_tokens.weight"]
        into, back = rows[tokenizer.token_to_id("<|step_into|>")], rows[tokenizer.token_to_id("<|step_return|>")]
        self.assertGreater(into @ back / np.linalg.norm(into) / np.linalg.norm(back), 0.9)


if __name__ == "__main__":
    unittest.main()
