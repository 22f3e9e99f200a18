"""A committed adapter as a model directory `ndb --model` loads: the base
(`adapter.json` names it) with the adapter's LoRA merged and its special
tokens' rows in place, the way train.py exports at the end of a run
(`OUT/model/`), for an adapter saved mid-run (`OUT/best/`, a campaign's
record).

    python3 inference/training/export_adapter.py --adapter inference/training/campaign-qwen --out /tmp/qwen-debugger

PyTorch, transformers and peft for a Qwen base (inference/training/requirements.txt);
the model is written in float32 (about 2.5 GB for Qwen2.5-Coder-0.5B).
"""

import argparse
import json
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import train  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", required=True, help="a folder with adapter.json and adapter.safetensors")
    parser.add_argument("--out", required=True, help="the model directory to write")
    parser.add_argument("--gguf", help="the base's GGUF (default: where the set-up installs it)")
    options = parser.parse_args(argv)
    import torch

    import llama

    with open(os.path.join(options.adapter, "adapter.json"), encoding="utf-8") as handle:
        meta = json.load(handle)
    settings = types.SimpleNamespace(init=meta["init"], lora=meta["rank"], lora_alpha=meta["alpha"],
                                     gguf=options.gguf,
                                     token_init=meta.get("training", {}).get("token_init", "words"))
    model, tokenizer_json, base_vocab = train.build(settings, torch)
    if base_vocab != meta["base_vocab"] or model.config.vocab_size != meta["vocab_size"]:
        raise SystemExit("%s was trained on a base with %s tokens (%s with its own), this base has %s (%s)"
                         % (options.adapter, meta["base_vocab"], meta["vocab_size"], base_vocab,
                            model.config.vocab_size))
    tensors = llama.load_safetensors(os.path.join(options.adapter, "adapter.safetensors"))
    train.put_adapter(model, tensors, base_vocab, options.adapter, torch)
    summary = dict(meta.get("training") or {}, exported_from=os.path.abspath(options.adapter))
    if settings.init in train.QWEN_BASES:
        train.save_qwen_directory(options.out, model, tokenizer_json, summary)
    else:
        llama.save_hf_directory(options.out, model, tokenizer_json, train.EOS_TOKEN,
                                extra_config={"ndb_training": summary})
    print("export_adapter: wrote %s (%s, step %s)" % (options.out, meta["init"], summary.get("steps")),
          file=sys.stderr)


if __name__ == "__main__":
    main()
