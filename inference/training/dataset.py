"""Reading the dataset `ndb data generate` writes, and turning a record into
token ids with a loss mask.

A record's pieces are context (read) or states (written, loss on them).
Every piece is cut further at the text language's special tokens into
segments, each tagged with the component it belongs to (`event`, `line`,
`locals`, `value` or context), then tokenised segment by segment: the
tokenizer splits at special tokens first, so this gives the same ids as
tokenising the whole text, and every token knows its component.
"""

import glob
import gzip
import json
import os
import random
import re

SPECIAL = re.compile(r"(<\|[a-z_]+\|>)")
# Events whose `<|arg_sep|>` part is a return value or exception, not locals.
VALUE_EVENTS = ("return_sep", "exception_sep", "exit_normal", "exit_error", "exit_never",
                "inv_exit_entry")
COMPONENTS = ("event", "line", "locals", "value")


def shards(data_dir, split):
    paths = sorted(glob.glob(os.path.join(data_dir, "%s-*.jsonl.gz" % split)))
    if not paths:
        raise SystemExit("no %s shards in %s (run `ndb data generate --out %s`)" % (split, data_dir, data_dir))
    return paths


def records(data_dir, split):
    for path in shards(data_dir, split):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                yield json.loads(line)


def state_segments(text):
    """(segment, component) pairs of one state's text."""
    parts = [part for part in SPECIAL.split(text) if part]
    out = []
    event = parts[0].strip("<|>") if parts and SPECIAL.fullmatch(parts[0]) else ""
    current = "event"
    for part in parts:
        if part in ("<|src_sep|>",):
            out.append((part, "line"))
            current = "line"
        elif part == "<|arg_sep|>":
            current = "value" if event.replace("inv_", "") in VALUE_EVENTS else "locals"
            out.append((part, current))
        elif SPECIAL.fullmatch(part):
            out.append((part, "event"))
            current = "event"
        else:
            out.append((part, current))
    return out


class Encoder:
    """Token ids of records for one tokenizer (a `tokenizers.Tokenizer`)."""

    def __init__(self, tokenizer, max_tokens):
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.cache = {}

    def ids(self, text):
        cached = self.cache.get(text)
        if cached is None:
            cached = self.tokenizer.encode(text, add_special_tokens=False).ids
            if len(self.cache) < 200_000 and len(text) < 64:
                self.cache[text] = cached
        return cached

    def encode(self, record):
        """dict(ids, labels (-100 = no loss), targets) or None when even the
        first state does not fit. `targets` lists, per written state, its
        token span, action, direction, per-component token masks, and
        `entry`: whether it is the first state after the entry call."""
        ids, labels, targets = [], [], []
        for text, action in record["pieces"]:
            if action is None:
                piece_ids = []
                for part in SPECIAL.split(text):
                    if part:
                        piece_ids += self.ids(part)
                if len(ids) + len(piece_ids) > self.max_tokens:
                    break
                ids += piece_ids
                labels += [-100] * len(piece_ids)
                continue
            piece_ids, components = [], []
            for segment, component in state_segments(text):
                segment_ids = self.ids(segment)
                piece_ids += segment_ids
                components += [component] * len(segment_ids)
            if len(ids) + len(piece_ids) > self.max_tokens:
                break
            start = len(ids)
            ids += piece_ids
            labels += piece_ids
            targets.append({"start": start, "end": len(ids), "action": action,
                            "direction": record["direction"], "components": components,
                            "entry": bool(record.get("entry")) and not targets})
        if not targets:
            return None
        return {"ids": ids, "labels": labels, "targets": targets}


def interleaved(data_dir, split, rng):
    """The records of every shard, drawn from the shards at random in
    proportion to their sizes, so that each shuffle window mixes corpora
    that were written to different shards (generated programs and real code,
    say). A single shard is read in order and draws nothing from `rng`."""
    paths = shards(data_dir, split)
    handles = [gzip.open(path, "rt", encoding="utf-8") for path in paths]
    weights = [max(os.path.getsize(path), 1) for path in paths]
    try:
        while handles:
            i = 0 if len(handles) == 1 else rng.choices(range(len(handles)), weights)[0]
            line = handles[i].readline()
            if not line:
                handles.pop(i).close()
                weights.pop(i)
                continue
            yield json.loads(line)
    finally:
        for handle in handles:
            handle.close()


def batches(data_dir, split, encoder, batch_tokens, seed, skip_batches=0, workers=0):
    """Endless (epoch after epoch) lists of encoded records, shards
    interleaved and shuffled within a window, about `batch_tokens` tokens
    each (padding counted). Resuming with `skip_batches` replays the same
    order. `workers` > 0 encodes each window's records in that many
    processes (a GPU outruns one process's tokenizing); the batches are the
    same as with none."""
    rng = random.Random(seed)
    produced = 0
    epoch = 0
    pool = _encoding_pool(encoder, workers) if workers > 0 else None
    try:
        while True:
            window = []
            for record in interleaved(data_dir, split, rng):
                window.append(record)
                if len(window) >= 2048:
                    for batch in _window_batches(window, encoder, batch_tokens, rng, pool):
                        produced += 1
                        if produced > skip_batches:
                            yield batch
                    window = []
            for batch in _window_batches(window, encoder, batch_tokens, rng, pool):
                produced += 1
                if produced > skip_batches:
                    yield batch
            epoch += 1
            if produced == 0:
                raise SystemExit("the %s split of %s holds no usable record" % (split, data_dir))
    finally:
        if pool is not None:
            pool.terminate()


# The encoder the pool's processes use, set before they are forked (so the
# tokenizer is not pickled with every record).
_POOL_ENCODER = None


def _encode_in_pool(record):
    return _POOL_ENCODER.encode(record)


def _encoding_pool(encoder, workers):
    import multiprocessing

    global _POOL_ENCODER
    _POOL_ENCODER = encoder
    return multiprocessing.get_context("fork").Pool(workers)


def _window_batches(window, encoder, batch_tokens, rng, pool=None):
    rng.shuffle(window)
    if pool is not None:
        encoded = pool.map(_encode_in_pool, window, chunksize=max(1, len(window) // 64))
    else:
        encoded = [encoder.encode(record) for record in window]
    encoded = [item for item in encoded if item]
    # Similar lengths together waste less padding.
    encoded.sort(key=lambda item: len(item["ids"]))
    groups, group, longest = [], [], 0
    for item in encoded:
        longest_if = max(longest, len(item["ids"]))
        if group and longest_if * (len(group) + 1) > batch_tokens:
            groups.append(group)
            group, longest_if = [], len(item["ids"])
        group.append(item)
        longest = longest_if
    if group:
        groups.append(group)
    rng.shuffle(groups)
    return groups


def collate(group, pad_id):
    import torch

    length = max(len(item["ids"]) for item in group)
    ids = torch.full((len(group), length), pad_id, dtype=torch.long)
    labels = torch.full((len(group), length), -100, dtype=torch.long)
    for row, item in enumerate(group):
        ids[row, : len(item["ids"])] = torch.tensor(item["ids"])
        labels[row, : len(item["labels"])] = torch.tensor(item["labels"])
    return ids, labels
