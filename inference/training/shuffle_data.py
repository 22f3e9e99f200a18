#!/usr/bin/env python3
"""Write a dataset of `ndb data generate` again with its records in one
random order per split, the same for every run and machine.

    python3 inference/training/shuffle_data.py DATA OUT [--seed S] [--shard-records N]

`ndb data generate` writes a program's trajectories together (about 25 a
program: every first action from each entry call, the inverse ones, the
random ones), and `train.py` reads the shards in order, shuffling only
within a window of 2,048 records. A window then holds about 80 programs,
and a CPU session that reads a few thousand records sees a few hundred
programs of the thousands traced; `evaluate.py`'s first 100 held-out
records come from four to eight programs. Shuffled, every window and every
evaluation draws from all of them.

The records are unchanged; only their order and the shard files are new
(gzip written with a zero timestamp, so the bytes and `train.py`'s digest
are the same on every machine). `manifest.json` is copied with a
`shuffled` entry that names the seed and the source's digest.
"""

import argparse
import gzip
import hashlib
import json
import os
import random
import sys

SPLITS = ("train", "heldout")


def shard_paths(data_dir, split):
    names = sorted(name for name in os.listdir(data_dir)
                   if name.startswith(split + "-") and name.endswith(".jsonl.gz"))
    return [os.path.join(data_dir, name) for name in names]


def digest_of(data_dir):
    """The same digest `train.py` computes (names and bytes of the shards)."""
    digest = hashlib.sha256()
    for path in sorted(p for split in SPLITS for p in shard_paths(data_dir, split)):
        digest.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def read_lines(paths):
    lines = []
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            lines.extend(line if line.endswith("\n") else line + "\n" for line in handle)
    return lines


def write_shards(out_dir, split, lines, shard_records):
    written = []
    for number, start in enumerate(range(0, max(len(lines), 1), shard_records)):
        path = os.path.join(out_dir, "%s-%05d.jsonl.gz" % (split, number))
        with open(path, "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as handle:
                handle.write("".join(lines[start:start + shard_records]).encode("utf-8"))
        written.append(os.path.basename(path))
    return written


def shuffle(data_dir, out_dir, seed=0, shard_records=20000):
    if os.path.abspath(data_dir) == os.path.abspath(out_dir):
        raise SystemExit("shuffle_data: OUT must be another folder than DATA")
    manifest_path = os.path.join(data_dir, "manifest.json")
    if not os.path.exists(manifest_path):
        raise SystemExit("shuffle_data: %s has no manifest.json (not a dataset of ndb data generate)"
                         % data_dir)
    os.makedirs(out_dir, exist_ok=True)
    for split in SPLITS:
        for stale in shard_paths(out_dir, split):
            os.remove(stale)
    counts = {}
    for split in SPLITS:
        lines = read_lines(shard_paths(data_dir, split))
        # One generator per split, seeded by text: the order does not depend
        # on hash randomisation or on the other split.
        random.Random("%d:%s" % (seed, split)).shuffle(lines)
        write_shards(out_dir, split, lines, shard_records)
        counts[split] = len(lines)
    with open(manifest_path, encoding="utf-8") as handle:
        manifest = json.load(handle)
    manifest["shuffled"] = {"seed": seed, "shard_records": shard_records,
                            "from_digest": digest_of(data_dir), "records": counts}
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=2)
        handle.write("\n")
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="a dataset folder of `ndb data generate`")
    parser.add_argument("out", help="the shuffled dataset's folder (created)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shard-records", type=int, default=20000)
    options = parser.parse_args(argv)
    counts = shuffle(options.data, options.out, options.seed, options.shard_records)
    print("shuffle_data: %s" % ", ".join("%d %s records" % (n, s) for s, n in counts.items()),
          file=sys.stderr)


if __name__ == "__main__":
    main()
