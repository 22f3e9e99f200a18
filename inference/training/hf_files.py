"""The small files of a Hugging Face style model directory, as mistral.rs
reads them (no PyTorch: build_default_model.py uses this too)."""

import json
import os
import struct


def hf_config(fields, eos_id):
    """config.json from LlamaConfig fields: a top-level `rope_theta` (what
    mistral.rs reads; transformers 5 would write `rope_parameters`), and
    `lm_head.weight` always written, so never tied."""
    config = dict(fields)
    heads = config["num_attention_heads"]
    config.update(
        architectures=["LlamaForCausalLM"],
        model_type="llama",
        hidden_act="silu",
        head_dim=config["hidden_size"] // heads,
        rope_scaling=None,
        attention_bias=False,
        mlp_bias=False,
        initializer_range=0.02,
        torch_dtype="float32",
        use_cache=True,
        bos_token_id=eos_id,
        eos_token_id=eos_id,
        tie_word_embeddings=False,
    )
    return config


def write_tokenizer_files(out_dir, tokenizer, eos_token, max_positions):
    eos_id = tokenizer.token_to_id(eos_token)
    specials = [token for token in tokenizer.get_vocab(with_added_tokens=True)
                if token.startswith("<|") and token.endswith("|>")]
    write_json(os.path.join(out_dir, "tokenizer_config.json"), {
        "add_bos_token": False,
        "add_eos_token": False,
        "bos_token": eos_token,
        "eos_token": eos_token,
        "pad_token": None,
        "unk_token": None,
        "clean_up_tokenization_spaces": False,
        "model_max_length": max_positions,
        "tokenizer_class": "PreTrainedTokenizerFast",
        "additional_special_tokens": sorted(specials),
        # Completion requests only; a chat request just joins the texts.
        "chat_template": "{% for message in messages %}{{ message['content'] }}{% endfor %}",
    })
    write_json(os.path.join(out_dir, "generation_config.json"),
               {"bos_token_id": eos_id, "eos_token_id": eos_id, "max_length": max_positions})


def write_json(path, value):
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        json.dump(value, handle, indent=2, sort_keys=True)
        handle.write("\n")


# -- safetensors, float32, by hand (numpy) -----------------------------------


def read_safetensors(path):
    import numpy as np

    with open(path, "rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(length))
        body = handle.read()
    header.pop("__metadata__", None)
    out = {}
    for name, entry in header.items():
        if entry["dtype"] != "F32":
            raise SystemExit("safetensors: %s is %s, expected F32" % (name, entry["dtype"]))
        begin, end = entry["data_offsets"]
        out[name] = np.frombuffer(body[begin:end], dtype="<f4").reshape(entry["shape"])
    return out


def write_safetensors(path, tensors):
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    names = sorted(tensors)
    for name in names:
        size = tensors[name].size * 4
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path + ".partial", "wb") as handle:
        handle.write(struct.pack("<Q", len(text)))
        handle.write(text)
        for name in names:
            handle.write(tensors[name].astype("<f4").tobytes())
    os.replace(path + ".partial", path)
