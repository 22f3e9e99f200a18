#!/usr/bin/env python3
"""Build ndb's default model, a pair of models (inference/models/default/,
`ndb-models.json` from inference/default-model/):

- the debugger-language model: the SmolLM2-135M GGUF (fetched by
  fetch_default_model.py into inference/models/base/) with the committed
  debugger adapter (inference/default-model/: LoRA matrices and the text
  language's special-token rows, trained by inference/training/train.py)
  merged in, written as a Hugging Face style directory that mistral.rs
  loads: inference/models/smollm2-debugger/;
- the code model asked the jumps as assertions: Qwen2.5-Coder-1.5B in Q8_0
  (inference/models/qwen2.5-coder-1.5b-q8/, written by
  fetch_default_model.py), named by the manifest.

    python3 inference/scripts/build_default_model.py [--adapter DIR] [--gguf PATH] [--out DIR] [--default DIR] [--source MODELS]

numpy, gguf and tokenizers only (no PyTorch). Safe to run again: it skips
the work when OUT was built from the same adapter and base (a stamp file
holds their SHA-256). The model is written in float32 (about 0.6 GB).
"""

import argparse
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "inference", "training"))
sys.path.insert(0, HERE)

from fetch_default_model import sha256_of  # noqa: E402

ADAPTER_DIR = os.path.join(REPO, "inference", "default-model")
BASE_DIR = os.path.join(REPO, "inference", "models", "base")
OUT_DIR = os.path.join(REPO, "inference", "models", "smollm2-debugger")
DEFAULT_DIR = os.path.join(REPO, "inference", "models", "default")
PAIR_MANIFEST = "ndb-models.json"
EOS_TOKEN = "<|endoftext|>"


def merge(weights, adapter, meta):
    """Adds scale * B @ A to every adapted projection and replaces the new
    tokens' rows."""
    scale = meta["alpha"] / meta["rank"]
    merged = 0
    for name in sorted(adapter):
        if not name.endswith(".lora_a"):
            continue
        stem = name[: -len(".lora_a")]
        target = stem + ".weight"
        if target not in weights:
            raise SystemExit("build_default_model: the adapter's %s is not in the base model" % target)
        delta = adapter[stem + ".lora_b"] @ adapter[name]
        weights[target] = weights[target] + scale * delta
        merged += 1
    start, end = meta["base_vocab"], meta["vocab_size"]
    for key, name in (("new_rows.embed_tokens", "model.embed_tokens.weight"), ("new_rows.lm_head", "lm_head.weight")):
        rows = adapter.get(key)
        if rows is not None:
            if rows.shape[0] != end - start or weights[name].shape[0] != end:
                raise SystemExit("build_default_model: %s has %d rows, expected %d" % (key, rows.shape[0], end - start))
            weights[name] = weights[name].copy()
            weights[name][start:end] = rows
    return merged


def write_pair(adapter_dir, default_dir):
    """The default folder: the committed manifest naming the pair, and
    nothing else (an older set-up built the SmolLM2 model right there).
    An adapter folder without a manifest (a training run's) builds the
    debugger-language model only."""
    if not os.path.isfile(os.path.join(adapter_dir, PAIR_MANIFEST)):
        return
    with open(os.path.join(adapter_dir, PAIR_MANIFEST), encoding="utf-8") as handle:
        manifest = handle.read()
    json.loads(manifest)
    if os.path.isdir(default_dir):
        for name in os.listdir(default_dir):
            if name != PAIR_MANIFEST:
                path = os.path.join(default_dir, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    os.makedirs(default_dir, exist_ok=True)
    with open(os.path.join(default_dir, PAIR_MANIFEST), "w", encoding="utf-8") as handle:
        handle.write(manifest)


def reuse(source, out, stamp):
    """Takes the debugger-language model from the models folder `source`
    (another installation's) when it was built from the same adapter and
    base, file by file (hard links where one file system holds both)."""
    from fetch_default_model import link_or_copy

    theirs = os.path.join(source, os.path.basename(out)) if source else None
    if not theirs or os.path.abspath(theirs) == os.path.abspath(out) or not built(theirs, stamp):
        return False
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for name in sorted(os.listdir(theirs)):
        if name != "ndb-build.json":
            link_or_copy(os.path.join(theirs, name), os.path.join(out, name))
    write_stamp(out, stamp)
    print("debugger-language model taken from %s" % theirs, file=sys.stderr)
    return True


def built(out, stamp):
    stamp_path = os.path.join(out, "ndb-build.json")
    if not (os.path.exists(stamp_path) and os.path.exists(os.path.join(out, "model.safetensors"))):
        return False
    with open(stamp_path, encoding="utf-8") as handle:
        return json.load(handle) == stamp


def write_stamp(out, stamp):
    import hf_files

    hf_files.write_json(os.path.join(out, "ndb-build.json"), stamp)


def build(adapter_dir=ADAPTER_DIR, gguf=BASE_DIR, out=OUT_DIR, default=DEFAULT_DIR, source=None):
    """Builds the debugger-language model into `out` and writes the pair's
    manifest into `default`; `source`, a models folder, may already hold
    the same build."""
    import hf_files
    import smollm2
    from tokenizers import Tokenizer

    write_pair(adapter_dir, default)
    adapter_path = os.path.join(adapter_dir, "adapter.safetensors")
    with open(os.path.join(adapter_dir, "adapter.json"), encoding="utf-8") as handle:
        meta = json.load(handle)
    gguf_path = smollm2.find_gguf(gguf)
    stamp = {"adapter": sha256_of(adapter_path), "base": os.path.basename(gguf_path),
             "base_size": os.path.getsize(gguf_path), "format": 1}
    if built(out, stamp):
        print("default model already built: %s" % out, file=sys.stderr)
        return 0
    if reuse(source, out, stamp):
        return 0
    if meta["special_tokens"] != smollm2.special_tokens():
        raise SystemExit("build_default_model: the adapter was trained with other special tokens than "
                         "grammar/src/text/mod.rs has now; retrain it (inference/training/README.md)")
    print("building the default model from %s and %s" % (os.path.basename(gguf_path), adapter_dir),
          file=sys.stderr)
    config, weights, tokenizer_json, base_vocab = smollm2.load(gguf_path)
    if (base_vocab, config["vocab_size"]) != (meta["base_vocab"], meta["vocab_size"]):
        raise SystemExit("build_default_model: vocabulary %s does not match the adapter's %s"
                         % ((base_vocab, config["vocab_size"]), (meta["base_vocab"], meta["vocab_size"])))
    merged = merge(weights, hf_files.read_safetensors(adapter_path), meta)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    tokenizer = Tokenizer.from_str(tokenizer_json)
    eos_id = tokenizer.token_to_id(EOS_TOKEN)
    hf = hf_files.hf_config(config, eos_id)
    hf["ndb_training"] = meta.get("training", {})
    hf_files.write_json(os.path.join(out, "config.json"), hf)
    hf_files.write_safetensors(os.path.join(out, "model.safetensors"), weights)
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as handle:
        handle.write(tokenizer_json)
    hf_files.write_tokenizer_files(out, tokenizer, EOS_TOKEN, config["max_position_embeddings"])
    write_stamp(out, stamp)
    print("built %s (%d projections adapted)" % (out, merged), file=sys.stderr)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default=ADAPTER_DIR)
    parser.add_argument("--gguf", default=BASE_DIR)
    parser.add_argument("--out", default=OUT_DIR)
    parser.add_argument("--default", default=DEFAULT_DIR,
                        help="where the pair's manifest goes (the folder `ndb` loads by default)")
    parser.add_argument("--source", help="a models folder that may already hold the same build")
    options = parser.parse_args()
    return build(options.adapter, options.gguf, options.out, options.default, options.source)


if __name__ == "__main__":
    sys.exit(main())
