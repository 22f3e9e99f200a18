"""Tests of shuffle_data.py (standard library only)."""

import gzip
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True

import dataset  # noqa: E402
import shuffle_data  # noqa: E402


def write_dataset(folder, programs, per_program):
    """Records written as `ndb data generate` writes them: a program's
    trajectories together, in two train shards and one held-out shard."""
    os.makedirs(folder)
    train = [{"program": "p%d" % p, "i": i} for p in range(programs) for i in range(per_program)]
    half = len(train) // 2
    for number, part in enumerate((train[:half], train[half:])):
        with gzip.open(os.path.join(folder, "train-%05d.jsonl.gz" % number), "wt") as handle:
            handle.writelines(json.dumps(record) + "\n" for record in part)
    with gzip.open(os.path.join(folder, "heldout-00000.jsonl.gz"), "wt") as handle:
        for p in range(programs):
            for i in range(per_program):
                handle.write(json.dumps({"program": "h%d" % p, "i": i}) + "\n")
    with open(os.path.join(folder, "manifest.json"), "w") as handle:
        json.dump({"seed": 1}, handle)


def read(folder, split):
    return list(dataset.records(folder, split))


class Shuffle(unittest.TestCase):
    def test_the_same_records_in_an_order_that_mixes_programs(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "data")
            write_dataset(source, programs=40, per_program=25)
            counts = shuffle_data.shuffle(source, os.path.join(tmp, "out"), seed=3,
                                          shard_records=300)
            self.assertEqual(counts, {"train": 1000, "heldout": 1000})
            out = os.path.join(tmp, "out")
            for split in ("train", "heldout"):
                before, after = read(source, split), read(out, split)
                key = lambda record: (record["program"], record["i"])  # noqa: E731
                self.assertEqual(sorted(map(key, before)), sorted(map(key, after)))
                self.assertNotEqual([key(r) for r in before], [key(r) for r in after])
                # The first 100 records come from most of the 40 programs,
                # where the generator's order gives four.
                self.assertEqual(len({r["program"] for r in before[:100]}), 4)
                self.assertGreater(len({r["program"] for r in after[:100]}), 30)
            self.assertEqual(len(shuffle_data.shard_paths(out, "train")), 4)
            with open(os.path.join(out, "manifest.json")) as handle:
                manifest = json.load(handle)
            self.assertEqual(manifest["seed"], 1)
            self.assertEqual(manifest["shuffled"]["seed"], 3)
            self.assertEqual(manifest["shuffled"]["from_digest"], shuffle_data.digest_of(source))

    def test_the_bytes_depend_only_on_the_data_and_the_seed(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "data")
            write_dataset(source, programs=10, per_program=5)
            one, two, other = (os.path.join(tmp, name) for name in ("one", "two", "other"))
            shuffle_data.shuffle(source, one, seed=5)
            shuffle_data.shuffle(source, two, seed=5)
            shuffle_data.shuffle(source, other, seed=6)
            self.assertEqual(shuffle_data.digest_of(one), shuffle_data.digest_of(two))
            self.assertNotEqual(shuffle_data.digest_of(one), shuffle_data.digest_of(other))

    def test_a_folder_without_a_manifest_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(SystemExit):
                shuffle_data.shuffle(tmp, os.path.join(tmp, "out"))


if __name__ == "__main__":
    unittest.main()
