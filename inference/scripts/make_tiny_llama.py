#!/usr/bin/env python3
"""Write a tiny Hugging Face style Llama model directory with random weights.

    python3 inference/scripts/make_tiny_llama.py OUT_DIR [--seed S] [--hidden-size N]
    python3 inference/scripts/make_tiny_llama.py --check OUT_DIR
    python3 inference/scripts/make_tiny_llama.py --self-test

What it is for: a plumbing fixture for the model loader (mistral.rs) and
everything around it (tokenizer, special tokens of the text language, EOS,
constrained decoding), small enough to load in a second on a CPU. The
weights are random: the model is not a debugger and its predictions are
noise. Nothing is downloaded.

OUT_DIR receives:

- `config.json`: LlamaForCausalLM, 2 layers, hidden size 128 (or
  `--hidden-size`), 4 heads, 4 key-value heads, intermediate size 256,
  4096 positions, `rope_theta`, `rms_norm_eps`, untied embeddings, float32,
  BOS = EOS = `<|endoftext|>`, `vocab_size` = the tokenizer's size;
- `model.safetensors`, written by hand: an 8-byte little-endian header
  length, a JSON header (padded with spaces to a multiple of 8 bytes) and
  the raw little-endian float32 data, tensors named as in HF Llama. Norm
  weights are 1.0; every other weight is normal(0, 0.02) from
  `random.Random(seed)`;
- `tokenizer.json`: a byte-level BPE (ByteLevel pre-tokenizer and decoder)
  of about 1000 tokens trained with the `tokenizers` package on a small
  built-in corpus of Python code and text-language trajectories, with
  `<|endoftext|>` (id 0) and every special token of the text language
  (`SPECIAL_TOKENS` of `grammar/src/text/mod.rs`, read from that file) added as
  one special token each;
- `tokenizer_config.json` and `generation_config.json`.

The same seed gives byte-identical files with the same Python and
`tokenizers` versions (the tokenizer does not depend on the seed). Writing
a directory ends with `--check`'s checks: the safetensors header is
consistent and matches the config, the tokenizer's size is `vocab_size`, its
decoder is ByteLevel, text round-trips, and every special token encodes to
exactly one id. `--self-test` writes three directories to a temporary
folder and checks them and their determinism.

Needs `tokenizers`, pinned to the version of the Rust crate mistral.rs
links (`pip install tokenizers==0.21.4`); numpy and torch are not used.
"""

import argparse
import json
import os
import random
import re
import struct
import sys
from array import array

HERE = os.path.dirname(os.path.abspath(__file__))
TEXT_RS = os.path.join(HERE, "..", "..", "grammar", "src", "text", "mod.rs")

EOS_TOKEN = "<|endoftext|>"
VOCAB_SIZE = 1000
NUM_LAYERS = 2
NUM_HEADS = 4
NUM_KV_HEADS = 4
INTERMEDIATE_SIZE = 256
MAX_POSITIONS = 4096
ROPE_THETA = 10000.0
RMS_NORM_EPS = 1e-5
INIT_STD = 0.02


# ---------------------------------------------------------------------------
# The text language's special tokens


def special_tokens(text_rs=TEXT_RS):
    """The `SPECIAL_TOKENS` of grammar/src/text/mod.rs, in their order."""
    with open(text_rs, encoding="utf-8") as handle:
        source = handle.read()
    constants = dict(re.findall(r'pub const (\w+): &str = "([^"]*)";', source))
    match = re.search(r"pub const SPECIAL_TOKENS: &\[&str\] = &\[(.*?)\];", source, re.S)
    if match is None:
        raise SystemExit("make_tiny_llama: no SPECIAL_TOKENS in %s" % text_rs)
    names = re.findall(r"\b([A-Z][A-Z0-9_]*)\b", match.group(1))
    missing = [name for name in names if name not in constants]
    if not names or missing:
        raise SystemExit("make_tiny_llama: cannot read SPECIAL_TOKENS of %s (%s)" % (text_rs, missing))
    tokens = [constants[name] for name in names]
    if len(set(tokens)) != len(tokens) or EOS_TOKEN in tokens:
        raise SystemExit("make_tiny_llama: SPECIAL_TOKENS of %s repeat a token" % text_rs)
    return tokens


# ---------------------------------------------------------------------------
# The tokenizer

PYTHON_SAMPLES = [
    '''def total_of(values):
    total = 0
    for value in values:
        total += value
    return total
''',
    '''def binary_search(items, target):
    low, high = 0, len(items) - 1
    while low <= high:
        middle = (low + high) // 2
        if items[middle] == target:
            return middle
        if items[middle] < target:
            low = middle + 1
        else:
            high = middle - 1
    return -1
''',
    '''class Counter:
    def __init__(self, start=0):
        self.count = start

    def bump(self, step=1):
        self.count += step
        return self.count
''',
    '''def count_words(words):
    counts = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    return sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
''',
    '''def safe_ratio(a, b):
    try:
        return a / b
    except ZeroDivisionError as error:
        print("cannot divide:", error)
        return None
    finally:
        print("done")
''',
    '''def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def first_fibs(count):
    return [fib(i) for i in range(count)]
''',
    '''def windows(values, size):
    result = []
    for start in range(len(values) - size + 1):
        window = values[start:start + size]
        result.append(sum(window) / size)
    return result
''',
    '''def parse_all(texts):
    numbers = []
    for text in texts:
        if not text.strip():
            continue
        try:
            numbers.append(int(text))
        except ValueError:
            raise ValueError("bad number: %r" % text)
    return numbers
''',
]

TRACE_SAMPLES = [
    '''<|trace_context_start|>def f(x):
    n = 0
    n += x
    return n
<|frame_sep|><|call_sep|><|src_sep|>def f(x):<|arg_sep|>{"x": "5"}<|action_sep|><|step_over|>
<|frame_sep|><|line_sep|><|arg_sep|>{"..": ".."}<|src_sep|>    n = 0<|action_sep|><|step_over|>
<|frame_sep|><|line_sep|><|arg_sep|>{"..": "..", "n": "0"}<|src_sep|>    n += x<|action_sep|><|step_return|>
<|frame_sep|><|return_sep|><|src_sep|>    return n<|arg_sep|>"5"<|action_sep|><|inv_step_call|>
<|frame_sep|><|inv_call_sep|><|src_sep|>def f(x):<|arg_sep|>{"x": "5"}<|trace_end|>''',
    '''<|trace_context_start|>def total_of(values):
    total = 0
    for value in values:
        total += value
    return total
<|frame_sep|><|call_sep|><|src_sep|>def total_of(values):<|arg_sep|>{"values": "[3, 1, 2]"}<|action_sep|><|step_into|>
<|frame_sep|><|line_sep|><|arg_sep|>{"..": ".."}<|src_sep|>    total = 0<|action_sep|><|step_into|>
<|frame_sep|><|line_sep|><|arg_sep|>{"..": "..", "total": "0"}<|src_sep|>    for value in values:<|action_sep|><|breakpoint|>return total
<|frame_sep|><|line_sep|><|arg_sep|>{"values": "[3, 1, 2]", "total": "6", "value": "2"}<|src_sep|>    return total<|action_sep|><|continue|>
<|frame_sep|><|exit_normal|><|action_sep|><|inv_step_over|>
<|frame_sep|><|inv_return_sep|><|src_sep|>    return total<|arg_sep|>"6"<|action_sep|><|inv_step_into|>
<|frame_sep|><|inv_line_sep|><|src_sep|>    return total<|arg_sep|>{"values": "[3, 1, 2]", "total": "6", "value": "2"}<|trace_end|>''',
    '''<|trace_context_start|>def safe_ratio(a, b):
    return a / b
<|frame_sep|><|call_sep|><|src_sep|>def safe_ratio(a, b):<|arg_sep|>{"a": "1", "b": "0"}<|action_sep|><|step_over|>
<|frame_sep|><|line_sep|><|arg_sep|>{"..": ".."}<|src_sep|>    return a / b<|action_sep|><|step_over|>
<|frame_sep|><|exception_sep|><|src_sep|>    return a / b<|arg_sep|>"ZeroDivisionError('division by zero')"<|action_sep|><|step_over|>
<|frame_sep|><|return_sep|><|src_sep|>    return a / b<|arg_sep|>"None"<|action_sep|><|step_over|>
<|frame_sep|><|exit_error|><|action_sep|><|inv_step_over|>
<|frame_sep|><|inv_exception_sep|><|src_sep|>    return a / b<|arg_sep|>"ZeroDivisionError('division by zero')"<|action_sep|><|inv_step_into|>
<|frame_sep|><|inv_line_call_sep|><|src_sep|>    return a / b<|arg_sep|>{"a": "1", "b": "0"}<|action_sep|><|inv_step_call|>
<|frame_sep|><|inv_exit_entry|><|trace_end|>''',
    '''<|trace_context_start|>def countdown(n):
    while True:
        n -= 1
<|frame_sep|><|call_sep|><|src_sep|>def countdown(n):<|arg_sep|>{"n": "3"}<|action_sep|><|continue|>
<|frame_sep|><|exit_never|><|trace_end|>''',
]


NAMES = [
    "i", "j", "n", "x", "y", "key", "value", "values", "items", "item", "total", "count",
    "result", "text", "word", "words", "line", "lines", "node", "left", "right", "stack",
    "queue", "seen", "index", "start", "end", "size", "data", "self", "other", "acc",
    "matrix", "row", "col", "grid", "path", "graph", "visited", "parent", "child", "children",
    "buffer", "chunk", "offset", "limit", "low", "high", "middle", "target", "pivot", "pair",
    "first", "second", "last", "prefix", "suffix", "pattern", "match", "found", "error",
    "message", "config", "options", "name", "label", "score", "scores", "weight", "price",
    "amount", "balance", "account", "ledger", "event", "events", "state", "frame", "depth",
    "counter", "cache", "memo", "step", "steps", "delta", "width", "height", "area", "point",
]
LINES = [
    "for {a} in {b}:", "while {a} < {b}:", "if {a} == {b}:", "elif {a} > {b}:", "else:",
    "{a} = {b}", "{a} += {b}", "{a} -= 1", "{a}.append({b})", "{a}[{b}] = {a}.get({b}, 0) + 1",
    "return {a}", "return {a} + {b}", "yield {a}", "{a} = [{b} for {b} in range(len({a}))]",
    "{a}, {b} = {b}, {a}", "if not {a}:", "break", "continue", "try:", "except KeyError:",
    "raise ValueError({a!r})", "{a} = sorted({b}, reverse=True)", "print({a}, {b})",
    "{a} = {{{b!r}: {a}}}", "with open({a}) as {b}:", "assert {a} is not None",
    "def {a}({b}, *args, **kwargs):", "class {A}({B}):", "lambda {a}: {a} * 2",
]
REPRS = [
    "0", "1", "-1", "42", "3.5", "None", "True", "False", "[]", "{}", "()", "''",
    "[1, 2, 3]", "(1, 'a')", "{'a': 1}", "{1, 2}", "'hello'", "\"it's\"", "b'x'",
    "[0, 1, 2, ...<+97>]", "'aaaa'...<+996 chars>", "<__main__.Node object at 0x...>",
    "<function f at 0x...>", "ZeroDivisionError('division by zero')", "KeyError('k')",
    "range(0, 10)", "frozenset({3})", "[[1, 2], [3, 4]]", "{'x': [1, {'y': None}]}",
]


def synthetic_samples():
    """Lines of Python and states of the text language made from the lists
    above (a fixed generator: the same texts every time)."""
    rng = random.Random(20240611)
    texts = []
    for _ in range(1500):
        a, b = rng.choice(NAMES), rng.choice(NAMES)
        line = rng.choice(LINES).format(a=a, b=b, A=a.title(), B=b.title())
        indent = "    " * rng.randint(1, 3)
        local_names = rng.sample(NAMES, rng.randint(1, 4))
        locals_text = ", ".join(
            '"%s": "%s"' % (name, rng.choice(REPRS).replace('"', '\\"')) for name in local_names
        )
        kind = rng.choice(["<|line_sep|>", "<|line_sep|>", "<|inv_line_sep|>", "<|call_sep|>"])
        action = rng.choice(["<|step_into|>", "<|step_over|>", "<|step_return|>", "<|continue|>",
                             "<|inv_step_into|>", "<|inv_step_over|>", "<|inv_step_call|>"])
        if kind == "<|line_sep|>":
            delta = '"..": "..", ' if rng.random() < 0.5 else ""
            state = "<|line_sep|><|arg_sep|>{%s%s}<|src_sep|>%s%s" % (delta, locals_text, indent, line)
        else:
            state = "%s<|src_sep|>%s%s<|arg_sep|>{%s}" % (kind, indent, line, locals_text)
        texts.append("%s%s\n" % (indent, line))
        texts.append("<|frame_sep|>%s<|action_sep|>%s\n" % (state, action))
    return texts


def training_corpus():
    """The built-in texts the tokenizer is trained on, in a fixed order."""
    texts = []
    for _ in range(2):
        texts.extend(PYTHON_SAMPLES)
        texts.extend(TRACE_SAMPLES)
    texts.extend(synthetic_samples())
    return texts


def build_tokenizer(specials):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        min_frequency=2,
        show_progress=False,
        special_tokens=[EOS_TOKEN] + specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(training_corpus(), trainer=trainer)
    return tokenizer


# ---------------------------------------------------------------------------
# The weights


def tensor_shapes(config):
    """name -> shape, as in HF Llama."""
    hidden = config["hidden_size"]
    head_dim = hidden // config["num_attention_heads"]
    kv = config["num_key_value_heads"] * head_dim
    inner = config["intermediate_size"]
    vocab = config["vocab_size"]
    shapes = {
        "model.embed_tokens.weight": [vocab, hidden],
        "model.norm.weight": [hidden],
        "lm_head.weight": [vocab, hidden],
    }
    for layer in range(config["num_hidden_layers"]):
        prefix = "model.layers.%d." % layer
        shapes[prefix + "self_attn.q_proj.weight"] = [hidden, hidden]
        shapes[prefix + "self_attn.k_proj.weight"] = [kv, hidden]
        shapes[prefix + "self_attn.v_proj.weight"] = [kv, hidden]
        shapes[prefix + "self_attn.o_proj.weight"] = [hidden, hidden]
        shapes[prefix + "mlp.gate_proj.weight"] = [inner, hidden]
        shapes[prefix + "mlp.up_proj.weight"] = [inner, hidden]
        shapes[prefix + "mlp.down_proj.weight"] = [hidden, inner]
        shapes[prefix + "input_layernorm.weight"] = [hidden]
        shapes[prefix + "post_attention_layernorm.weight"] = [hidden]
    return shapes


def _count(shape):
    count = 1
    for size in shape:
        count *= size
    return count


def write_safetensors(path, config, seed):
    rng = random.Random(seed)
    header = {"__metadata__": {"format": "pt"}}
    blobs = []
    offset = 0
    for name, shape in sorted(tensor_shapes(config).items()):
        count = _count(shape)
        if name.endswith("norm.weight"):
            values = array("f", [1.0]) * count
        else:
            gauss = rng.gauss
            values = array("f", [gauss(0.0, INIT_STD) for _ in range(count)])
        if sys.byteorder != "little":
            values.byteswap()
        data = values.tobytes()
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(text)))
        handle.write(text)
        for data in blobs:
            handle.write(data)


# ---------------------------------------------------------------------------
# The directory


def write_json(path, value):
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        json.dump(value, handle, indent=2, sort_keys=True)
        handle.write("\n")


def chosen_specials(mode):
    """The special tokens a fixture's tokenizer gets: all of them (a trained
    debugger vocabulary), none (like a general pretrained tokenizer), or
    some (a broken one, which the loader must refuse)."""
    specials = special_tokens()
    if mode == "none":
        return []
    if mode == "some":
        return specials[: len(specials) // 2]
    return specials


def make(out_dir, seed, hidden_size, specials_mode="all", max_positions=MAX_POSITIONS):
    if hidden_size % NUM_HEADS or (hidden_size // NUM_HEADS) % 2:
        raise SystemExit("make_tiny_llama: --hidden-size must be a multiple of %d" % (2 * NUM_HEADS))
    specials = chosen_specials(specials_mode)
    tokenizer = build_tokenizer(specials)
    eos_id = tokenizer.token_to_id(EOS_TOKEN)
    os.makedirs(out_dir, exist_ok=True)
    config = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_act": "silu",
        "hidden_size": hidden_size,
        "intermediate_size": INTERMEDIATE_SIZE,
        "num_hidden_layers": NUM_LAYERS,
        "num_attention_heads": NUM_HEADS,
        "num_key_value_heads": NUM_KV_HEADS,
        "head_dim": hidden_size // NUM_HEADS,
        "max_position_embeddings": max_positions,
        "ndb_fixture": {"special_tokens": specials_mode},
        "rope_theta": ROPE_THETA,
        "rope_scaling": None,
        "rms_norm_eps": RMS_NORM_EPS,
        "attention_bias": False,
        "mlp_bias": False,
        "initializer_range": INIT_STD,
        "tie_word_embeddings": False,
        "torch_dtype": "float32",
        "use_cache": True,
        "vocab_size": tokenizer.get_vocab_size(with_added_tokens=True),
        "bos_token_id": eos_id,
        "eos_token_id": eos_id,
    }
    write_json(os.path.join(out_dir, "config.json"), config)
    tokenizer.save(os.path.join(out_dir, "tokenizer.json"))
    write_json(
        os.path.join(out_dir, "tokenizer_config.json"),
        {
            "add_bos_token": False,
            "add_eos_token": False,
            "bos_token": EOS_TOKEN,
            "eos_token": EOS_TOKEN,
            "pad_token": None,
            "unk_token": None,
            "clean_up_tokenization_spaces": False,
            "model_max_length": max_positions,
            "tokenizer_class": "PreTrainedTokenizerFast",
            "additional_special_tokens": specials,
            # Chat requests just concatenate the messages' texts.
            "chat_template": "{% for message in messages %}{{ message['content'] }}{% endfor %}",
        },
    )
    write_json(
        os.path.join(out_dir, "generation_config.json"),
        {"bos_token_id": eos_id, "eos_token_id": eos_id, "max_length": max_positions},
    )
    write_safetensors(os.path.join(out_dir, "model.safetensors"), config, seed)


# ---------------------------------------------------------------------------
# Checking a written directory


def check(out_dir):
    """Problems found in `out_dir` (empty when it is sound)."""
    problems = []
    with open(os.path.join(out_dir, "config.json"), encoding="utf-8") as handle:
        config = json.load(handle)
    path = os.path.join(out_dir, "model.safetensors")
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        (header_length,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(header_length).decode("utf-8"))
    header.pop("__metadata__", None)
    expected = tensor_shapes(config)
    if sorted(header) != sorted(expected):
        problems.append("tensor names differ: %s" % sorted(set(header) ^ set(expected)))
    spans = []
    for name, entry in sorted(header.items()):
        begin, end = entry["data_offsets"]
        if entry["dtype"] != "F32":
            problems.append("%s: dtype %s" % (name, entry["dtype"]))
        if name in expected and entry["shape"] != expected[name]:
            problems.append("%s: shape %s, config says %s" % (name, entry["shape"], expected[name]))
        if end - begin != 4 * _count(entry["shape"]):
            problems.append("%s: %d bytes for shape %s" % (name, end - begin, entry["shape"]))
        spans.append((begin, end, name))
    spans.sort()
    position = 0
    for begin, end, name in spans:
        if begin != position:
            problems.append("%s starts at %d, expected %d" % (name, begin, position))
        position = end
    if 8 + header_length + position != size:
        problems.append("file is %d bytes, header says %d" % (size, 8 + header_length + position))
    with open(path, "rb") as handle:
        norm = header["model.norm.weight"]["data_offsets"]
        handle.seek(8 + header_length + norm[0])
        values = array("f")
        values.frombytes(handle.read(norm[1] - norm[0]))
        if sys.byteorder != "little":
            values.byteswap()
        if any(value != 1.0 for value in values):
            problems.append("model.norm.weight is not all ones")

    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(os.path.join(out_dir, "tokenizer.json"))
    if tokenizer.get_vocab_size(with_added_tokens=True) != config["vocab_size"]:
        problems.append("vocab_size %d, tokenizer has %d" % (
            config["vocab_size"], tokenizer.get_vocab_size(with_added_tokens=True)))
    mode = config.get("ndb_fixture", {}).get("special_tokens", "all")
    for token in [EOS_TOKEN] + chosen_specials(mode):
        ids = tokenizer.encode(token).ids
        if len(ids) != 1:
            problems.append("%s encodes to %s" % (token, ids))
        elif tokenizer.decode(ids, skip_special_tokens=False) != token:
            problems.append("%s decodes to %r" % (token, tokenizer.decode(ids, skip_special_tokens=False)))
    if tokenizer.token_to_id(EOS_TOKEN) != config["eos_token_id"]:
        problems.append("eos_token_id %s is not %s" % (config["eos_token_id"], EOS_TOKEN))
    sample = TRACE_SAMPLES[1] + "\n" + PYTHON_SAMPLES[3] + " caf\u00e9 \u2603 \U0001f600"
    encoding = tokenizer.encode(sample)
    if tokenizer.decode(encoding.ids, skip_special_tokens=False) != sample:
        problems.append("a sample does not round-trip through the tokenizer")
    if len(encoding.ids) >= len(sample.encode("utf-8")) // 2:
        problems.append("the BPE barely merges: %d ids for %d bytes" % (
            len(encoding.ids), len(sample.encode("utf-8"))))
    decoder = json.loads(tokenizer.to_str()).get("decoder") or {}
    if decoder.get("type") != "ByteLevel":
        problems.append("decoder is %s, not ByteLevel" % decoder.get("type"))
    return problems


def self_test():
    """Write the directory twice with one seed and once with another: the
    same seed gives the same bytes, another seed other weights and the same
    tokenizer, and every directory passes `check`."""
    import shutil
    import tempfile

    problems = []
    root = tempfile.mkdtemp(prefix="tiny-llama-")
    try:
        paths = [os.path.join(root, name) for name in ("a", "b", "c")]
        for path, seed in zip(paths, (1, 1, 2)):
            make(path, seed, 64)
            problems += ["%s: %s" % (os.path.basename(path), p) for p in check(path)]
        names = sorted(os.listdir(paths[0]))
        if names != ["config.json", "generation_config.json", "model.safetensors",
                     "tokenizer.json", "tokenizer_config.json"]:
            problems.append("unexpected files %s" % names)

        def read(path, name):
            with open(os.path.join(path, name), "rb") as handle:
                return handle.read()

        for name in names:
            if read(paths[0], name) != read(paths[1], name):
                problems.append("%s differs between two runs with the same seed" % name)
        if read(paths[0], "model.safetensors") == read(paths[2], "model.safetensors"):
            problems.append("another seed gave the same weights")
        if read(paths[0], "tokenizer.json") != read(paths[2], "tokenizer.json"):
            problems.append("the tokenizer depends on the seed")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", nargs="?")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden-size", type=int, default=128)
    parser.add_argument("--special-tokens", choices=["all", "none", "some"], default="all",
                        help="which of the text language's special tokens the tokenizer gets")
    parser.add_argument("--max-positions", type=int, default=MAX_POSITIONS,
                        help="the model's context length")
    parser.add_argument("--check", action="store_true", help="verify OUT_DIR instead of writing it")
    parser.add_argument("--self-test", action="store_true",
                        help="write to a temporary directory and check determinism")
    options = parser.parse_args(argv)
    if options.self_test:
        problems = self_test()
        for problem in problems:
            sys.stderr.write("make_tiny_llama self-test: %s\n" % problem)
        if not problems:
            sys.stderr.write("make_tiny_llama self-test passed\n")
        return 1 if problems else 0
    if options.out_dir is None:
        parser.error("OUT_DIR is required")
    if not options.check:
        make(options.out_dir, options.seed, options.hidden_size,
             options.special_tokens, options.max_positions)
    problems = check(options.out_dir)
    for problem in problems:
        sys.stderr.write("make_tiny_llama: %s\n" % problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
