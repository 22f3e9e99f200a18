"""A Llama decoder in plain PyTorch, with Hugging Face's tensor names and
LoRA adapters.

The model is the one mistral.rs serves (`LlamaForCausalLM`): RMSNorm,
rotary embeddings in the `rotate_half` layout, grouped-query attention and a
SwiGLU MLP. Weights are named as in Hugging Face checkpoints
(`model.layers.0.self_attn.q_proj.weight`, ...), so a state dict written by
`save_hf_directory` loads in mistral.rs as it is (float32 safetensors,
written by `hf_files`). transformers is not used:
nothing here depends on its version (transformers 5 writes
`rope_parameters` where mistral.rs reads a top-level `rope_theta`).
"""

import json
import math
import os

import hf_files
import torch
import torch.nn.functional as F
from torch import nn


class LlamaConfig:
    FIELDS = {
        "vocab_size": 49152,
        "hidden_size": 576,
        "intermediate_size": 1536,
        "num_hidden_layers": 30,
        "num_attention_heads": 9,
        "num_key_value_heads": 3,
        "max_position_embeddings": 8192,
        "rope_theta": 100000.0,
        "rms_norm_eps": 1e-5,
        "tie_word_embeddings": False,
    }

    def __init__(self, **values):
        unknown = set(values) - set(self.FIELDS)
        if unknown:
            raise ValueError("unknown config fields %s" % sorted(unknown))
        for name, default in self.FIELDS.items():
            setattr(self, name, values.get(name, default))

    @property
    def head_dim(self):
        return self.hidden_size // self.num_attention_heads

    def to_dict(self):
        return {name: getattr(self, name) for name in self.FIELDS}


class LoRALinear(nn.Module):
    """`base(x) + scale * B(A(x))` with the base frozen; B starts at zero,
    so a fresh adapter changes nothing."""

    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.rank = rank
        self.scale = alpha / rank
        self.lora_a = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))

    @property
    def weight(self):
        return self.base.weight

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.lora_a), self.lora_b) * self.scale

    def merged_weight(self):
        return self.base.weight + (self.lora_b @ self.lora_a) * self.scale


class GrownEmbedding(nn.Module):
    """An embedding table whose first `base` rows stay as pretrained and
    whose rows from `base` on (tokens added to the vocabulary) are trained.
    Only the new rows are a parameter, so gradients, optimiser state and
    checkpoints hold 27 rows, not 49,179."""

    def __init__(self, weight, base):
        super().__init__()
        self.register_buffer("base_rows", weight[:base].detach().clone(), persistent=False)
        self.new_rows = nn.Parameter(weight[base:].detach().clone())

    @property
    def weight(self):
        return torch.cat([self.base_rows, self.new_rows])

    def forward(self, ids):
        return F.embedding(ids, self.weight)


class GrownLinear(GrownEmbedding):
    """The output projection with the same split (`lm_head`)."""

    def forward(self, x):
        return F.linear(x, self.weight)


class RMSNorm(nn.Module):
    def __init__(self, size, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        hidden, head = config.hidden_size, config.head_dim
        self.q_proj = nn.Linear(hidden, config.num_attention_heads * head, bias=False)
        self.k_proj = nn.Linear(hidden, config.num_key_value_heads * head, bias=False)
        self.v_proj = nn.Linear(hidden, config.num_key_value_heads * head, bias=False)
        self.o_proj = nn.Linear(config.num_attention_heads * head, hidden, bias=False)

    def forward(self, x, cos, sin):
        batch, length, _ = x.shape
        c = self.config
        q = self.q_proj(x).view(batch, length, c.num_attention_heads, c.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(batch, length, c.num_key_value_heads, c.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(batch, length, c.num_key_value_heads, c.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        repeat = c.num_attention_heads // c.num_key_value_heads
        if repeat > 1:
            k = k.repeat_interleave(repeat, dim=1)
            v = v.repeat_interleave(repeat, dim=1)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(batch, length, -1))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self_attn = Attention(config)
        self.mlp = MLP(config)
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class Body(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(Layer(config) for _ in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)


class Llama(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = Body(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.gradient_checkpointing = False

    def rotary(self, length, device, dtype):
        c = self.config
        inv_freq = 1.0 / (c.rope_theta ** (torch.arange(0, c.head_dim, 2, device=device).float() / c.head_dim))
        positions = torch.arange(length, device=device).float()
        freqs = torch.outer(positions, inv_freq)
        angles = torch.cat((freqs, freqs), dim=-1)
        return angles.cos().to(dtype)[None, None], angles.sin().to(dtype)[None, None]

    def forward(self, input_ids):
        return self.lm_head(self.hidden(input_ids))

    def hidden(self, input_ids):
        """The final normed hidden states (the loss applies `lm_head` only
        where there is a label: most tokens are context)."""
        x = self.model.embed_tokens(input_ids)
        cos, sin = self.rotary(input_ids.shape[1], input_ids.device, x.dtype)
        for layer in self.model.layers:
            if self.gradient_checkpointing and self.training:
                x = torch.utils.checkpoint.checkpoint(layer, x, cos, sin, use_reentrant=False)
            else:
                x = layer(x, cos, sin)
        return self.model.norm(x)

    # -- LoRA -------------------------------------------------------------

    LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")

    def add_lora(self, rank, alpha, targets=LORA_TARGETS):
        """Freezes every weight and wraps the target projections in LoRA."""
        for parameter in self.parameters():
            parameter.requires_grad_(False)
        for layer in self.model.layers:
            for owner in (layer.self_attn, layer.mlp):
                for name in targets:
                    if hasattr(owner, name) and isinstance(getattr(owner, name), nn.Linear):
                        setattr(owner, name, LoRALinear(getattr(owner, name), rank, alpha))

    def grow_vocabulary(self, base):
        """Freezes the embedding and output rows below `base` and trains the
        rows from `base` on (the added tokens)."""
        self.model.embed_tokens = GrownEmbedding(self.model.embed_tokens.weight, base)
        self.lm_head = GrownLinear(self.lm_head.weight, base)

    def hf_state_dict(self):
        """The weights under Hugging Face names, LoRA merged in."""
        out = {}
        for name, module in self.named_modules():
            if isinstance(module, LoRALinear):
                out[name + ".weight"] = module.merged_weight().detach()
            elif isinstance(module, GrownEmbedding):
                out[name + ".weight"] = module.weight.detach()
        for name, tensor in self.state_dict().items():
            if ".lora_" in name or ".base." in name or name.endswith("new_rows"):
                continue
            out[name] = tensor.detach()
        return out

    def adapter_state_dict(self, trained_rows=None):
        """What differs from the base: LoRA matrices (and, when new tokens
        were added, their embedding and output rows)."""
        out = {}
        for name, tensor in self.state_dict().items():
            if ".lora_" in name:
                out[name] = tensor.detach()
        if trained_rows is not None:
            start, end = trained_rows
            out["new_rows.embed_tokens"] = self.model.embed_tokens.weight[start:end].detach()
            out["new_rows.lm_head"] = self.lm_head.weight[start:end].detach()
        return out


def load_hf_state_dict(model, tensors):
    """Loads Hugging Face names into `model` (before any LoRA is added)."""
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    missing = [name for name in missing if name != "lm_head.weight"]
    if missing or unexpected:
        raise ValueError("state dict mismatch: missing %s, unexpected %s" % (missing[:5], unexpected[:5]))
    if "lm_head.weight" not in tensors:
        model.lm_head.weight.data.copy_(model.model.embed_tokens.weight.data)


def load_hf_directory(path):
    """A directory written by `save_hf_directory` -> (model, tokenizer)."""
    from tokenizers import Tokenizer

    with open(os.path.join(path, "config.json"), encoding="utf-8") as handle:
        config = json.load(handle)
    fields = {name: config[name] for name in LlamaConfig.FIELDS if name in config}
    fields["tie_word_embeddings"] = False
    model = Llama(LlamaConfig(**fields))
    load_hf_state_dict(model, load_safetensors(os.path.join(path, "model.safetensors")))
    return model, Tokenizer.from_file(os.path.join(path, "tokenizer.json"))


# -- safetensors (float32, through hf_files) -------------------------------


def save_safetensors(path, tensors):
    hf_files.write_safetensors(path, {name: tensor.detach().float().cpu().numpy()
                                      for name, tensor in tensors.items()})


def load_safetensors(path):
    return {name: torch.from_numpy(array.copy()) for name, array in hf_files.read_safetensors(path).items()}


def save_hf_directory(out_dir, model, tokenizer_json, eos_token, extra_config=None):
    """config.json, model.safetensors (float32), tokenizer.json,
    tokenizer_config.json and generation_config.json: a directory
    `ndb --model` loads."""
    from tokenizers import Tokenizer

    os.makedirs(out_dir, exist_ok=True)
    tokenizer = Tokenizer.from_str(tokenizer_json)
    eos_id = tokenizer.token_to_id(eos_token)
    if eos_id is None:
        raise ValueError("the tokenizer has no %s" % eos_token)
    config = hf_files.hf_config(model.config.to_dict(), eos_id)
    config.update(extra_config or {})
    hf_files.write_json(os.path.join(out_dir, "config.json"), config)
    tensors = {name: tensor.float() for name, tensor in model.hf_state_dict().items()}
    save_safetensors(os.path.join(out_dir, "model.safetensors"), tensors)
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as handle:
        handle.write(tokenizer_json)
    hf_files.write_tokenizer_files(out_dir, tokenizer, eos_token, model.config.max_position_embeddings)
