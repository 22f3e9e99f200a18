"""Held-out next-state exact match, per action and per component, greedy.

Teacher forcing: the model reads the real trajectory up to each state and
its argmax at every token of that state is compared with the real token.
A state counts as exact when every token is right, which is exactly when
greedy decoding would write it; `first_token` is the share whose first
token (the event marker) is right (without the grammar constraint, which can
only turn some wrong answers right: these numbers are a lower bound of
what `ndb` gets). A component (event, line, locals, value) is right when
all of its tokens are.

    python3 inference/training/evaluate.py --model OUT/model --data DATA [--records N]
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dataset  # noqa: E402


def empty_scores():
    return {"states": 0, "exact": 0, "first_token": 0, **{name: [0, 0] for name in dataset.COMPONENTS}}


def score_batch(model, group, pad_id, totals, per_state=None):
    import torch

    ids, _ = dataset.collate(group, pad_id)
    ids = ids.to(next(model.parameters()).device)
    with torch.no_grad():
        hidden = model.hidden(ids)
        for row, item in enumerate(group):
            for step, target in enumerate(item["targets"]):
                start, end = target["start"], target["end"]
                logits = model.lm_head(hidden[row, start - 1 : end - 1])
                guess = logits.argmax(-1).cpu().tolist()
                truth = item["ids"][start:end]
                right = [a == b for a, b in zip(guess, truth)]
                keys = [target["action"], "all", item.get("corpus", "generated") + ":all"]
                if target.get("entry"):
                    keys.append("entry:" + target["action"])
                if per_state is not None:
                    per_state.append({"record": item["record"], "step": step,
                                      "action": target["action"], "entry": bool(target.get("entry")),
                                      "exact": all(right)})
                for key in keys:
                    scores = totals.setdefault(key, empty_scores())
                    scores["states"] += 1
                    scores["exact"] += all(right)
                    scores["first_token"] += bool(right) and right[0]
                    for name in dataset.COMPONENTS:
                        mask = [component == name for component in target["components"]]
                        if any(mask):
                            scores[name][0] += 1
                            scores[name][1] += all(r for r, m in zip(right, mask) if m)


def corpus_of(record):
    """`generated` for programs.py's programs (ids `gen-SEED-N`), `real`
    for real code with its own inputs (code_corpus.py)."""
    return "generated" if record.get("program", "").startswith("gen-") else "real"


def evaluate(model, data_dir, encoder, pad_id, max_records=400, batch_tokens=4096, per_state=None):
    """{action or "all": {"states", "exact", "exact_match", component: share}};
    with a list as `per_state`, one entry per state is appended to it
    (`{"record", "step", "action", "entry", "exact"}`, as `ndb eval --task
    next-state` writes them)."""
    was_training = model.training
    model.eval()
    totals = {}
    group, group_tokens = [], 0
    for count, record in enumerate(dataset.records(data_dir, "heldout")):
        if count >= max_records:
            break
        item = encoder.encode(record)
        if item is None:
            continue
        item["corpus"] = corpus_of(record)
        item["record"] = count
        group.append(item)
        group_tokens = max(group_tokens, len(item["ids"])) 
        if group_tokens * len(group) >= batch_tokens:
            score_batch(model, group, pad_id, totals, per_state)
            group, group_tokens = [], 0
    if group:
        score_batch(model, group, pad_id, totals, per_state)
    if was_training:
        model.train()
    return summarise(totals)


def summarise(totals):
    out = {}
    for key, scores in sorted(totals.items()):
        entry = {"states": scores["states"],
                 "exact_match": round(scores["exact"] / max(scores["states"], 1), 4),
                 "first_token": round(scores["first_token"] / max(scores["states"], 1), 4)}
        for name in dataset.COMPONENTS:
            seen, right = scores[name]
            if seen:
                entry[name] = round(right / seen, 4)
        out[key] = entry
    return out


ACTIONS = ["step_into", "step_over", "step_return", "breakpoint", "continue", "inv_step_into",
           "inv_step_over", "inv_step_call"]
# Rows of the table: every action, the first state after the entry call
# per action (what `ndb predict` is asked most), all states of generated
# programs and of real code, then all states.
ROWS = ACTIONS + ["entry:" + action for action in ACTIONS[:5]] + ["generated:all", "real:all", "all"]


def format_table(summary):
    columns = ("exact_match", "first_token") + dataset.COMPONENTS
    lines = ["%-18s %6s %6s %6s %6s %6s %6s %6s" % ("action", "states", "exact", "first", "event", "line",
                                                    "locals", "value")]
    for key in ROWS:
        if key not in summary:
            continue
        entry = summary[key]
        cells = ["%6.3f" % entry[name] if name in entry else "     -" for name in columns]
        lines.append("%-18s %6d %s" % (key, entry["states"], " ".join(cells)))
    return "\n".join(lines)


def main():
    import torch

    import llama

    parser = argparse.ArgumentParser(description="held-out next-state exact match of a model directory")
    parser.add_argument("--model", required=True, help="a directory written by train.py (model/)")
    parser.add_argument("--data", required=True)
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--per-state", help="write one JSON line per scored state to this file")
    options = parser.parse_args()
    if options.threads:
        torch.set_num_threads(options.threads)
    model, tokenizer = llama.load_hf_directory(options.model)
    encoder = dataset.Encoder(tokenizer, options.max_tokens)
    per_state = [] if options.per_state else None
    summary = evaluate(model, options.data, encoder, pad_id=0, max_records=options.records, per_state=per_state)
    print(format_table(summary), file=sys.stderr)
    print(json.dumps(summary))
    if per_state is not None:
        per_state.sort(key=lambda entry: (entry["record"], entry["step"]))
        with open(options.per_state, "w", encoding="utf-8") as handle:
            for entry in per_state:
                handle.write(json.dumps(entry) + "\n")


if __name__ == "__main__":
    main()
