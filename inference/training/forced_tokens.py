"""The share of a state's tokens that the state grammar forces.

For every state of the first N held-out records, the recorded state's tokens
(as training tokenises them) are fed to llguidance (the engine mistral.rs
uses for `Constraint::Lark`, same version) under the grammar `ndb predict`
sends for that source (`ndb data grammar FILE [--inverse]`). A token is
forced when the grammar allows no other token at that point: the model's
choice there decides nothing, only its forward pass (the key and value for
the next token) is needed. Prints a table per action and one JSON summary.

    python3 inference/training/forced_tokens.py --model inference/models/smollm2-debugger \\
        --data DATA [--records 100] [--ndb target/debug/ndb]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dataset  # noqa: E402

START, FRAME = "<|trace_context_start|>", "<|frame_sep|>"


def source_of(record):
    """The program's source, as `ndb`'s parser reads it from the record."""
    text = record["pieces"][0][0]
    body = text[len(START):text.index(FRAME)] if text.startswith(START) else ""
    return body[:-1] if body.endswith("\n") else body


class Grammars:
    """`ndb data grammar` per (source, inverse), cached."""

    def __init__(self, ndb):
        self.ndb = ndb
        self.cache = {}

    def get(self, source, inverse):
        key = (source, inverse)
        if key not in self.cache:
            with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as file:
                file.write(source)
            try:
                command = [self.ndb, "data", "grammar", file.name] + (["--inverse"] if inverse else [])
                self.cache[key] = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            finally:
                os.unlink(file.name)
        return self.cache[key]


def allowed_count(matcher):
    """How many tokens the grammar allows next."""
    mask = matcher.compute_bitmask()
    return int.from_bytes(bytes(mask), "little").bit_count()


def main():
    import llguidance
    import tokenizers

    parser = argparse.ArgumentParser(description="share of state tokens forced by the grammar")
    parser.add_argument("--model", required=True, help="a model directory (its tokenizer.json)")
    parser.add_argument("--data", required=True)
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--ndb", default=os.path.join(HERE, "..", "..", "target", "debug", "ndb"))
    options = parser.parse_args()
    tokenizer_json = os.path.join(options.model, "tokenizer.json")
    encoder = dataset.Encoder(tokenizers.Tokenizer.from_file(tokenizer_json), options.max_tokens)
    with open(tokenizer_json, encoding="utf-8") as file:
        lltokenizer = llguidance.LLTokenizer(file.read())
    grammars = Grammars(options.ndb)
    totals = {}
    rejected = 0
    for count, record in enumerate(dataset.records(options.data, "heldout")):
        if count >= options.records:
            break
        item = encoder.encode(record)
        if item is None:
            continue
        source = source_of(record)
        for target in item["targets"]:
            action = target["action"]
            grammar = grammars.get(source, action.startswith("inv_"))
            matcher = llguidance.LLMatcher(lltokenizer, llguidance.LLMatcher.grammar_from_lark(grammar),
                                           log_level=0)
            tokens = item["ids"][target["start"]:target["end"]]
            forced = 0
            accepted = True
            for token in tokens:
                forced += allowed_count(matcher) == 1
                if not matcher.consume_token(token):
                    accepted = False
                    break
            if not accepted:
                rejected += 1
                continue
            for key in (action, "all"):
                scores = totals.setdefault(key, {"states": 0, "tokens": 0, "forced": 0})
                scores["states"] += 1
                scores["tokens"] += len(tokens)
                scores["forced"] += forced
    for scores in totals.values():
        scores["forced_share"] = round(scores["forced"] / max(scores["tokens"], 1), 4)
    print("%-14s %6s %7s %7s %6s" % ("action", "states", "tokens", "forced", "share"), file=sys.stderr)
    for key, scores in sorted(totals.items(), key=lambda kv: (kv[0] == "all", kv[0])):
        print("%-14s %6d %7d %7d %6.3f" % (key, scores["states"], scores["tokens"], scores["forced"],
                                            scores["forced_share"]), file=sys.stderr)
    if rejected:
        print("forced_tokens: %d recorded states are not accepted by their grammar" % rejected,
              file=sys.stderr)
    print(json.dumps({"actions": totals, "rejected": rejected}))


if __name__ == "__main__":
    main()
