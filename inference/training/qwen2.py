"""Qwen2.5-Coder as a training base: transformers reads the Q4_K_M GGUF that
inference/scripts/fetch_default_model.py installs (dequantised to float32),
the text language's special tokens are added to its tokenizer as single
tokens, and peft puts LoRA on every projection (attention with its biases
kept frozen, and the MLP). The added tokens' embedding and output rows are
trained in full (`llama.GrownEmbedding`, `llama.GrownLinear`: only those
rows are parameters); the pretrained rows stay as they are.

The training loop (train.py) sees the same small interface as `llama.Llama`:
`hidden(ids)`, `lm_head(hidden)`, `config.vocab_size`, `model.embed_tokens`,
and `adapter_state_dict(trained_rows)`, which writes LoRA in the project's
own adapter format (`NAME.lora_a` rank x in, `NAME.lora_b` out x rank,
`new_rows.embed_tokens`, `new_rows.lm_head`): what
inference/scripts/build_default_model.py merges.

Qwen2's grouped KV heads, q/k/v biases and rotary settings are the
library's own code; nothing of the architecture is written here.
"""

import os
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
MODELS = os.path.join(REPO, "inference", "models")
BASES = {
    "qwen2.5-coder-0.5b": os.path.join(MODELS, "qwen2.5-coder-0.5b"),
    "qwen2.5-coder-1.5b": os.path.join(MODELS, "qwen2.5-coder-1.5b"),
}
EOS_TOKEN = "<|endoftext|>"
LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def find_gguf(init, path=None):
    """The GGUF file of base `init` (or `path`: a file or a folder with one)."""
    import smollm2

    return smollm2.find_gguf(path or BASES[init])


def load(init, lora_rank, lora_alpha, gguf=None, token_init="words"):
    """(model, tokenizer_json, base_vocab): base `init` with LoRA of
    `lora_rank` and the special tokens added, their rows initialised from
    the words of `smollm2.TOKEN_WORDS` (or their spelled-out pieces)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    import llama
    import smollm2

    path = find_gguf(init, gguf)
    directory, name = os.path.dirname(path), os.path.basename(path)
    tokenizer = AutoTokenizer.from_pretrained(directory, gguf_file=name)
    base_vocab = len(tokenizer)
    specials = smollm2.special_tokens()
    tokenizer.add_special_tokens({"additional_special_tokens": specials},
                                 replace_additional_special_tokens=False)
    for token in specials:
        if len(tokenizer.encode(token, add_special_tokens=False)) != 1:
            raise SystemExit("qwen2: %s is not one token after adding it" % token)
    vocab = len(tokenizer)
    hf = AutoModelForCausalLM.from_pretrained(directory, gguf_file=name, torch_dtype=torch.float32)
    hf.config.tie_word_embeddings = False
    with torch.no_grad():
        # The GGUF's vocabulary fills the embedding (151,936 rows): the
        # added tokens get rows of their own after it.
        old_embed, old_head = hf.model.embed_tokens.weight, hf.lm_head.weight
        rows = max(vocab, old_embed.shape[0])
        embed = torch.zeros(rows, old_embed.shape[1])
        head = torch.zeros(rows, old_head.shape[1])
        embed[: old_embed.shape[0]] = old_embed
        head[: old_head.shape[0]] = old_head
        for offset, token in enumerate(specials):
            text = smollm2.TOKEN_WORDS[token] if token_init == "words" else token
            pieces = tokenizer.encode(text, add_special_tokens=False)
            pieces = [piece for piece in pieces if piece < base_vocab] or [tokenizer.eos_token_id]
            embed[base_vocab + offset] = old_embed[pieces].mean(0)
            head[base_vocab + offset] = old_head[pieces].mean(0)
    hf.config.vocab_size = vocab
    config = LoraConfig(r=lora_rank, lora_alpha=lora_alpha, lora_dropout=0.0,
                        target_modules=LORA_TARGETS, bias="none")
    peft_model = get_peft_model(hf, config)
    inner = peft_model.base_model.model  # the Qwen2ForCausalLM, LoRA inside
    inner.model.embed_tokens = llama.GrownEmbedding(embed, base_vocab)
    inner.lm_head = llama.GrownLinear(head, base_vocab)
    tokenizer_json = tokenizer.backend_tokenizer.to_str()
    return Qwen2Debugger(peft_model, vocab, base_vocab, lora_rank, lora_alpha), tokenizer_json, base_vocab


class Qwen2Debugger:
    """Built lazily as a torch module (torch is imported only by `load`)."""

    def __new__(cls, peft_model, vocab, base_vocab, rank, alpha):
        import torch

        class Module(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.peft = peft_model
                self.config = types.SimpleNamespace(vocab_size=vocab, base_vocab=base_vocab)
                self.gradient_checkpointing = False
                self.rank, self.alpha = rank, alpha

            @property
            def model(self):
                # What train.py reads as `model.model.embed_tokens`.
                return self.peft.base_model.model.model

            @property
            def lm_head(self):
                return self.peft.base_model.model.lm_head

            def hidden(self, input_ids):
                """The final normed hidden states."""
                return self.model(input_ids=input_ids, use_cache=False).last_hidden_state

            def forward(self, input_ids):
                return self.lm_head(self.hidden(input_ids))

            def lora_modules(self):
                """(name under Qwen2ForCausalLM, A, B) of every LoRA layer."""
                prefix = "base_model.model."
                for name, module in self.peft.named_modules():
                    if hasattr(module, "lora_A") and "default" in getattr(module, "lora_A", {}):
                        short = name[len(prefix):] if name.startswith(prefix) else name
                        yield short, module.lora_A["default"].weight, module.lora_B["default"].weight

            def adapter_state_dict(self, trained_rows=None):
                out = {}
                for name, a, b in self.lora_modules():
                    out[name + ".lora_a"] = a.detach()
                    out[name + ".lora_b"] = b.detach()
                if trained_rows is not None:
                    start, end = trained_rows
                    out["new_rows.embed_tokens"] = self.model.embed_tokens.weight[start:end].detach()
                    out["new_rows.lm_head"] = self.lm_head.weight[start:end].detach()
                return out

            def merged_state_dict(self):
                """Every weight under Hugging Face names, LoRA merged in,
                the grown rows in place: a Qwen2ForCausalLM's state."""
                scale = self.alpha / self.rank
                lora = {name: (a, b) for name, a, b in self.lora_modules()}
                out = {}
                inner = self.peft.base_model.model
                for name, tensor in inner.state_dict().items():
                    if "lora_" in name or name.endswith("new_rows") or name.endswith("base_rows"):
                        continue
                    out[name.replace(".base_layer.", ".")] = tensor.detach()
                for name, (a, b) in lora.items():
                    key = name + ".weight"
                    out[key] = out[key] + scale * (b.detach() @ a.detach())
                out["model.embed_tokens.weight"] = self.model.embed_tokens.weight.detach()
                out["lm_head.weight"] = self.lm_head.weight.detach()
                return out

            def hf_config(self):
                config = self.peft.base_model.model.config.to_dict()
                config["vocab_size"] = self.config.vocab_size
                # What mistral.rs reads to choose its Qwen2 loader (a config
                # made from a GGUF names no architecture).
                config["architectures"] = ["Qwen2ForCausalLM"]
                config["model_type"] = "qwen2"
                config["tie_word_embeddings"] = False
                config["torch_dtype"] = "float32"
                config.pop("_name_or_path", None)
                return config

        return Module()
