"""Held-out next-state exact match, per action and per component, greedy.

Teacher forcing: the model reads the real trajectory up to each state and
its argmax at every token of that state is compared with the real token.
A state counts as exact when every token is right, which is exactly when
greedy decoding would write it (without the grammar constraint, which can
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
    return {"states": 0, "exact": 0, **{name: [0, 0] for name in dataset.COMPONENTS}}


def score_batch(model, group, pad_id, totals):
    import torch

    ids, _ = dataset.collate(group, pad_id)
    ids = ids.to(next(model.parameters()).device)
    with torch.no_grad():
        hidden = model.hidden(ids)
        for row, item in enumerate(group):
            for target in item["targets"]:
                start, end = target["start"], target["end"]
                logits = model.lm_head(hidden[row, start - 1 : end - 1])
                guess = logits.argmax(-1).cpu().tolist()
                truth = item["ids"][start:end]
                right = [a == b for a, b in zip(guess, truth)]
                for key in (target["action"], "all"):
                    scores = totals.setdefault(key, empty_scores())
                    scores["states"] += 1
                    scores["exact"] += all(right)
                    for name in dataset.COMPONENTS:
                        mask = [component == name for component in target["components"]]
                        if any(mask):
                            scores[name][0] += 1
                            scores[name][1] += all(r for r, m in zip(right, mask) if m)


def evaluate(model, data_dir, encoder, pad_id, max_records=400, batch_tokens=4096):
    """{action or "all": {"states", "exact", "exact_match", component: share}}."""
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
        group.append(item)
        group_tokens = max(group_tokens, len(item["ids"])) 
        if group_tokens * len(group) >= batch_tokens:
            score_batch(model, group, pad_id, totals)
            group, group_tokens = [], 0
    if group:
        score_batch(model, group, pad_id, totals)
    if was_training:
        model.train()
    return summarise(totals)


def summarise(totals):
    out = {}
    for key, scores in sorted(totals.items()):
        entry = {"states": scores["states"],
                 "exact_match": round(scores["exact"] / max(scores["states"], 1), 4)}
        for name in dataset.COMPONENTS:
            seen, right = scores[name]
            if seen:
                entry[name] = round(right / seen, 4)
        out[key] = entry
    return out


def format_table(summary):
    lines = ["%-14s %6s %6s %6s %6s %6s %6s" % ("action", "states", "exact", "event", "line", "locals", "value")]
    for key in ["step_into", "step_over", "step_return", "breakpoint", "continue", "inv_step_into",
                "inv_step_over", "inv_step_call", "all"]:
        if key not in summary:
            continue
        entry = summary[key]
        cells = ["%6.3f" % entry[name] if name in entry else "     -" for name in ("exact_match",) + dataset.COMPONENTS]
        lines.append("%-14s %6d %s" % (key, entry["states"], " ".join(cells)))
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
    options = parser.parse_args()
    if options.threads:
        torch.set_num_threads(options.threads)
    model, tokenizer = llama.load_hf_directory(options.model)
    encoder = dataset.Encoder(tokenizer, options.max_tokens)
    summary = evaluate(model, options.data, encoder, pad_id=0, max_records=options.records)
    print(format_table(summary), file=sys.stderr)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
