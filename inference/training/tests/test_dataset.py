"""Tests of dataset.py's reading of shards (standard library only)."""

import gzip
import json
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True

import dataset  # noqa: E402


def write_shard(path, program, n):
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for i in range(n):
            handle.write(json.dumps({"program": program, "i": i}) + "\n")


class Interleaving(unittest.TestCase):
    def test_shards_are_mixed_from_the_start_and_each_record_read_once(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_shard(os.path.join(tmp, "train-00000.jsonl.gz"), "generated", 300)
            write_shard(os.path.join(tmp, "train-00001.jsonl.gz"), "real", 300)
            got = list(dataset.interleaved(tmp, "train", random.Random(1)))
        self.assertEqual(len(got), 600)
        self.assertEqual(len({(r["program"], r["i"]) for r in got}), 600)
        first_half = [r["program"] for r in got[:300]]
        self.assertGreater(first_half.count("real"), 100)
        self.assertGreater(first_half.count("generated"), 100)
        # Within a shard, the order is kept.
        real = [r["i"] for r in got if r["program"] == "real"]
        self.assertEqual(real, sorted(real))

    def test_one_shard_is_read_in_order_without_drawing(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_shard(os.path.join(tmp, "train-00000.jsonl.gz"), "generated", 50)
            rng = random.Random(7)
            got = [r["i"] for r in dataset.interleaved(tmp, "train", rng)]
        self.assertEqual(got, list(range(50)))
        self.assertEqual(rng.random(), random.Random(7).random())


class LengthEncoder:
    """Stands in for dataset.Encoder: a record's ids from its fields."""

    def encode(self, record):
        if record["i"] % 11 == 0:
            return None
        return {"ids": [record["i"]] * (1 + record["i"] % 9), "labels": [], "targets": []}


class ParallelEncoding(unittest.TestCase):
    def test_worker_processes_give_the_same_batches_as_none(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_shard(os.path.join(tmp, "train-00000.jsonl.gz"), "generated", 2500)
            write_shard(os.path.join(tmp, "train-00001.jsonl.gz"), "real", 700)

            def first(workers, count=400, skip=0):
                stream = dataset.batches(tmp, "train", LengthEncoder(), 40, 5, skip_batches=skip,
                                         workers=workers)
                out = [[item["ids"] for item in next(stream)] for _ in range(count)]
                stream.close()
                return out

            serial = first(0)
            self.assertEqual(first(2), serial)
            # Resuming part-way reads the same stream with workers too.
            self.assertEqual(first(3, count=100, skip=300), serial[300:])


if __name__ == "__main__":
    unittest.main()
