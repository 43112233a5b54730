"""hf_ref.py - Hugging Face decoder architectures, written from the published
formulas (not from transformers, which is not used), and a writer of model
folders in the exact Hugging Face layout.

Architectures (config.json "architectures"):
  LlamaForCausalLM, MistralForCausalLM  grouped-query attention, optional
                                        untied lm_head, Llama 3.1 rope_scaling
  Qwen2ForCausalLM                      + biases on q_proj, k_proj, v_proj
  Qwen3ForCausalLM                      + per-head RMSNorm of q and k (q_norm,
                                        k_norm, weight of head_dim) before RoPE,
                                        head_dim independent of hidden/heads
  GemmaForCausalLM                      Llama-shaped layers with the Gemma
                                        changes below, tied by default
  Gemma2ForCausalLM                     + four norms per layer, attention and
                                        final logit soft-capping, a sliding
                                        window on every other layer
  Gemma3ForCausalLM                     + q_norm/k_norm, sliding layers by
                                        pattern or layer_types with their own
                                        RoPE base, linear rope_scaling on the
                                        global layers

  x = embed_tokens[ids]                                    [Gemma] * sqrt(C)
  per layer:  h = rmsnorm(x, input_layernorm)
              q = h Wq^T (+bq), k = h Wk^T (+bk), v = h Wv^T (+bv)
              split into H (q) and KVH (k, v) heads of hd; [Qwen3, Gemma3] q, k = rmsnorm per head
              q, k rotated (rotate_half RoPE, inv_freq maybe llama3- or linear-scaled)
              query head h attends with key/value head h // (H / KVH), causal mask
              s = q k^T / sqrt(hd)                         [Gemma] q k^T * scale
              [Gemma2/3] s = cap * tanh(s / cap)           (attn_logit_softcapping)
              [Gemma2/3 sliding layer] key j seen from query i iff 0 <= i - j < window
              a = concat_heads(softmax(s) v) Wo^T
              Llama, Qwen, Gemma:  x = x + a
                                   h = rmsnorm(x, post_attention_layernorm)
                                   x = x + mlp(h)
              Gemma2/3:            x = x + rmsnorm(a, post_attention_layernorm)
                                   h = rmsnorm(x, pre_feedforward_layernorm)
                                   x = x + rmsnorm(mlp(h), post_feedforward_layernorm)
              mlp(h) = (act(h Wgate^T) * h Wup^T) Wdown^T, act silu; [Gemma] gelu_tanh
  logits = rmsnorm(x, model.norm) W^T, W = lm_head or embed_tokens (tied, unscaled)
  [Gemma2/3] logits = cap * tanh(logits / cap)             (final_logit_softcapping)

Llama 3.1 scaling (rope_type "llama3"), with f the plain frequencies and
w = 2 pi / f: f / factor where w > orig / low_freq_factor; f where
w < orig / high_freq_factor; otherwise (1 - s) f / factor + s f with
s = (orig / w - low_freq_factor) / (high_freq_factor - low_freq_factor).
Linear scaling (rope_type "linear"): f / factor.

Gemma, exactly as Hugging Face's GemmaForCausalLM, Gemma2ForCausalLM and
Gemma3ForCausalLM compute it:
  rmsnorm(x, w) = x / sqrt(mean(x^2) + eps) * (1 + w) for every norm of the
    model (the stored weights sit around 0)
  the embedding is multiplied by sqrt(hidden_size) as a scalar of the compute
    dtype; the tied head uses the unscaled embedding
  gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), asked for
    by hidden_activation "gelu_pytorch_tanh" (Gemma 1 configs that only say
    hidden_act "gelu" get it too, as Hugging Face did for them up to 4.47)
  scale = query_pre_attn_scalar^-0.5 (Gemma2, Gemma3), head_dim^-0.5 (Gemma)
  sliding layers: config.json's layer_types ("sliding_attention" or
    "full_attention" per layer) when present; else Gemma2 layer l slides iff
    l is even, Gemma3 iff (l + 1) % sliding_window_pattern != 0
  Gemma3 RoPE: sliding layers with base rope_local_base_freq and no scaling,
    global layers with rope_theta and rope_scaling
Fields a Gemma config leaves out take Hugging Face's defaults (GEMMA_DEFAULTS).

Only torch, numpy, the standard library and model_ref.lora_name are used.
"""
import json
import math
import os
import struct

import numpy as np
import torch

from model_ref import lora_name  # PEFT's adapter names

GEMMA = ("GemmaForCausalLM", "Gemma2ForCausalLM", "Gemma3ForCausalLM")
FOUR_NORMS = ("Gemma2ForCausalLM", "Gemma3ForCausalLM")  # post-attention and feed-forward norms
# Hugging Face's config defaults for the fields a Gemma config.json may leave out
# (GemmaConfig, Gemma2Config, Gemma3TextConfig).
GEMMA_DEFAULTS = {
    "GemmaForCausalLM": {"head_dim": 256, "tie_word_embeddings": True, "rope_theta": 10000.0},
    "Gemma2ForCausalLM": {"head_dim": 256, "tie_word_embeddings": True, "rope_theta": 10000.0,
                          "query_pre_attn_scalar": 256, "attn_logit_softcapping": 50.0,
                          "final_logit_softcapping": 30.0, "sliding_window": 4096},
    "Gemma3ForCausalLM": {"head_dim": 256, "tie_word_embeddings": True, "rope_theta": 1000000.0,
                          "query_pre_attn_scalar": 256, "attn_logit_softcapping": None,
                          "final_logit_softcapping": None, "sliding_window": 4096,
                          "sliding_window_pattern": 6, "rope_local_base_freq": 10000.0},
}


def field(cfg, key, default=None):
    """config.json's value of key; when absent, Hugging Face's default for a
    Gemma architecture (GEMMA_DEFAULTS), else default."""
    if key in cfg:
        return cfg[key]
    return GEMMA_DEFAULTS.get(cfg["architectures"][0], {}).get(key, default)


def tied(cfg):
    """1 when the LM head is the embedding (tie_word_embeddings: default false,
    true for the Gemma architectures)."""
    return bool(field(cfg, "tie_word_embeddings", False))


def head_dim(cfg):
    """The attention heads' width: config.json's head_dim, else hidden / heads."""
    return field(cfg, "head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def sliding_layers(cfg):
    """[bool] per layer: 1 where the layer attends within sliding_window keys.
    Only Gemma2 and Gemma3 slide here: config.json's layer_types when present,
    else Gemma2 every even layer, Gemma3 every layer l with
    (l + 1) % sliding_window_pattern != 0."""
    L, arch = cfg["num_hidden_layers"], cfg["architectures"][0]
    if arch not in FOUR_NORMS or field(cfg, "sliding_window") is None:
        return [False] * L
    types = cfg.get("layer_types")
    if types is not None:
        assert len(types) == L and set(types) <= {"sliding_attention", "full_attention"}, types
        return [t == "sliding_attention" for t in types]
    if arch == "Gemma2ForCausalLM":
        return [l % 2 == 0 for l in range(L)]
    pattern = field(cfg, "sliding_window_pattern")
    return [(l + 1) % pattern != 0 for l in range(L)]


def gelu_tanh(x):
    """0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (gelu_pytorch_tanh)."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def activation(cfg):
    """The MLP's activation: silu (Llama, Qwen); for Gemma gelu_tanh, named
    "gelu_pytorch_tanh" by hidden_activation, or by hidden_act when there is
    no hidden_activation (a Gemma 1 config's legacy hidden_act "gelu", with no
    hidden_activation, means gelu_tanh too, as Hugging Face read it up to
    4.47 and as the model was trained)."""
    arch = cfg["architectures"][0]
    if arch not in GEMMA:
        return torch.nn.functional.silu
    name = cfg.get("hidden_activation")
    if name is None:
        name = cfg.get("hidden_act") or "gelu_pytorch_tanh"
        if arch == "GemmaForCausalLM" and name == "gelu":
            name = "gelu_pytorch_tanh"
    if name == "gelu_pytorch_tanh":
        return gelu_tanh
    raise ValueError("%s: activation %s is not described here" % (arch, name))


def layer_shapes(cfg):
    """[(name, shape)] of every tensor of the folder, in file order."""
    C, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H = cfg["num_attention_heads"]
    KVH = cfg.get("num_key_value_heads", H)
    hd = head_dim(cfg)
    arch = cfg["architectures"][0]
    out = [("model.embed_tokens.weight", (V, C))]
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        out.append((p + "input_layernorm.weight", (C,)))
        out.append((p + "self_attn.q_proj.weight", (H * hd, C)))
        out.append((p + "self_attn.k_proj.weight", (KVH * hd, C)))
        out.append((p + "self_attn.v_proj.weight", (KVH * hd, C)))
        if arch == "Qwen2ForCausalLM":
            out.append((p + "self_attn.q_proj.bias", (H * hd,)))
            out.append((p + "self_attn.k_proj.bias", (KVH * hd,)))
            out.append((p + "self_attn.v_proj.bias", (KVH * hd,)))
        if arch in ("Qwen3ForCausalLM", "Gemma3ForCausalLM"):
            out.append((p + "self_attn.q_norm.weight", (hd,)))
            out.append((p + "self_attn.k_norm.weight", (hd,)))
        out.append((p + "self_attn.o_proj.weight", (C, H * hd)))
        out.append((p + "post_attention_layernorm.weight", (C,)))
        if arch in FOUR_NORMS:
            out.append((p + "pre_feedforward_layernorm.weight", (C,)))
            out.append((p + "post_feedforward_layernorm.weight", (C,)))
        out.append((p + "mlp.gate_proj.weight", (F, C)))
        out.append((p + "mlp.up_proj.weight", (F, C)))
        out.append((p + "mlp.down_proj.weight", (C, F)))
    out.append(("model.norm.weight", (C,)))
    if not tied(cfg):
        out.append(("lm_head.weight", (V, C)))
    return out


def is_norm(name):
    """1 for an RMSNorm weight (vector of 1 + w or w), 0 for a matrix or bias."""
    return name.endswith("norm.weight") or name.endswith("layernorm.weight")


def init_params(cfg, seed, std=0.2):
    """{name: float32 tensor}: Normal(0, std) matrices and biases, norms
    1 + Normal(0, 0.1), or Normal(0, 0.1) for Gemma (which scales by 1 + w)."""
    g = torch.Generator().manual_seed(seed)
    gemma = cfg["architectures"][0] in GEMMA
    params = {}
    for name, shape in layer_shapes(cfg):
        if is_norm(name) and gemma:
            params[name] = 0.1 * torch.randn(shape, generator=g)
        elif is_norm(name):
            params[name] = 1.0 + 0.1 * torch.randn(shape, generator=g)
        else:
            params[name] = std * torch.randn(shape, generator=g)
    return params


def rms_norm(x, w, eps, plus_one=False):
    """x (..., n) * w (n) / sqrt(mean(x^2) + eps); with plus_one (Gemma) the
    scale is 1 + w."""
    scale = 1.0 + w if plus_one else w
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * scale


def inv_freq(cfg, hd, local=False):
    """(hd/2) RoPE frequencies, float32 as Hugging Face computes them, with
    the llama3 or linear scaling when config.json asks for it. local: those
    of Gemma3's sliding layers (base rope_local_base_freq, never scaled)."""
    if local:
        theta, rs = field(cfg, "rope_local_base_freq"), None
    else:
        theta, rs = field(cfg, "rope_theta", 10000.0), cfg.get("rope_scaling")
    f = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    if not rs:
        return f
    kind = rs.get("rope_type", rs.get("type"))
    if kind == "default":
        return f
    if kind == "linear":
        return f / rs["factor"]
    assert kind == "llama3", kind
    factor, low, high = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
    orig = rs["original_max_position_embeddings"]
    wavelen = 2 * math.pi / f
    scaled = torch.where(wavelen > orig / low, f / factor, f)
    s = (orig / wavelen - low) / (high - low)
    smoothed = (1 - s) * scaled / factor + s * scaled
    medium = ~(wavelen < orig / high) & ~(wavelen > orig / low)
    return torch.where(medium, smoothed, scaled)


def rope(x, freqs, positions):
    """x (T, heads, hd) rotated in the rotate_half layout by positions (T)."""
    angle = positions.to(freqs.dtype)[:, None] * freqs[None, :]   # (T, hd/2)
    angle = torch.cat((angle, angle), dim=-1)[:, None, :]         # (T, 1, hd)
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * torch.cos(angle) + rotated * torch.sin(angle)


def adapted(x, w, lora, layer, proj):
    """x W^T plus, when lora = {"scale": s, "weights": {...}} holds an adapter
    on (layer, proj), s * (x A^T) B^T (A: (rank, in), B: (out, rank))."""
    y = x @ w.T
    if lora is not None and lora_name(layer, proj, "A") in lora["weights"]:
        a = lora["weights"][lora_name(layer, proj, "A")]
        b = lora["weights"][lora_name(layer, proj, "B")]
        y = y + lora["scale"] * ((x @ a.T) @ b.T)
    return y


def softcap(x, cap):
    """cap * tanh(x / cap) (Gemma2's soft-capping), or x when cap is None."""
    if cap is None:
        return x
    return torch.tanh(x / cap) * cap


def forward(cfg, params, ids, dtype=torch.float64, lora=None):
    """ids (T) -> (logits (T, V), hidden (L+1, T, C)): the residual stream
    after the embedding (scaled, for Gemma) and after every layer, then the
    logits. lora: LoRA adapters on q, k, v, o (see adapted), or None.
    Differentiable in params and the adapters."""
    P = {k: v.to(dtype) for k, v in params.items()}
    C, H = cfg["hidden_size"], cfg["num_attention_heads"]
    KVH = cfg.get("num_key_value_heads", H)
    hd = head_dim(cfg)
    eps = cfg.get("rms_norm_eps", 1e-6)
    arch = cfg["architectures"][0]
    gemma, four = arch in GEMMA, arch in FOUR_NORMS
    T = len(ids)
    freqs = inv_freq(cfg, hd).to(dtype)
    local_freqs = inv_freq(cfg, hd, local=True).to(dtype) if arch == "Gemma3ForCausalLM" else freqs
    pos = torch.arange(T)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    slides = sliding_layers(cfg)
    window = causal
    if any(slides):   # query i sees key j iff 0 <= i - j < sliding_window
        window = causal & (pos[:, None] - pos[None, :] < field(cfg, "sliding_window"))
    scale = (field(cfg, "query_pre_attn_scalar") if four else hd) ** -0.5 if gemma else None
    attn_cap = field(cfg, "attn_logit_softcapping") if gemma else None
    act = activation(cfg)

    def norm(t, name):
        """rmsnorm by the weight name (1 + w for Gemma)."""
        return rms_norm(t, P[name], eps, gemma)

    x = P["model.embed_tokens.weight"][torch.as_tensor(ids)]
    if gemma:
        x = x * torch.tensor(C ** 0.5, dtype=dtype)
    hidden = [x]
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        h = norm(x, p + "input_layernorm.weight")
        proj = {}
        for n in "qkv":
            y = adapted(h, P[p + "self_attn.%s_proj.weight" % n], lora, l, n)
            if arch == "Qwen2ForCausalLM":
                y = y + P[p + "self_attn.%s_proj.bias" % n]
            proj[n] = y
        q = proj["q"].view(T, H, hd)
        k = proj["k"].view(T, KVH, hd)
        v = proj["v"].view(T, KVH, hd)
        if arch in ("Qwen3ForCausalLM", "Gemma3ForCausalLM"):
            q = norm(q, p + "self_attn.q_norm.weight")
            k = norm(k, p + "self_attn.k_norm.weight")
        f = local_freqs if slides[l] else freqs
        q, k = rope(q, f, pos), rope(k, f, pos)
        group = H // KVH
        k = k.repeat_interleave(group, dim=1)       # head h reads kv head h // group
        v = v.repeat_interleave(group, dim=1)
        if gemma:
            scores = softcap(torch.einsum("thd,shd->hts", q, k) * scale, attn_cap)
        else:
            scores = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd)
        scores = scores.masked_fill(~(window if slides[l] else causal), float("-inf"))
        att = torch.softmax(scores, dim=-1)
        out = torch.einsum("hts,shd->thd", att, v).reshape(T, H * hd)
        a = adapted(out, P[p + "self_attn.o_proj.weight"], lora, l, "o")
        if four:
            x = x + norm(a, p + "post_attention_layernorm.weight")
            h = norm(x, p + "pre_feedforward_layernorm.weight")
        else:
            x = x + a
            h = norm(x, p + "post_attention_layernorm.weight")
        gate = h @ P[p + "mlp.gate_proj.weight"].T
        up = h @ P[p + "mlp.up_proj.weight"].T
        m = (act(gate) * up) @ P[p + "mlp.down_proj.weight"].T
        x = x + (norm(m, p + "post_feedforward_layernorm.weight") if four else m)
        hidden.append(x)
    head = P["model.embed_tokens.weight"] if tied(cfg) else P["lm_head.weight"]
    logits = norm(x, "model.norm.weight") @ head.T
    if gemma:
        logits = softcap(logits, field(cfg, "final_logit_softcapping"))
    return logits, torch.stack(hidden)


# ---- the folder --------------------------------------------------------------

_ST_NAME = {torch.float32: "F32", torch.bfloat16: "BF16", torch.float16: "F16",
            torch.int32: "I32"}


def tensor_bytes(t):
    """Little-endian bytes of a tensor (bf16 and f16 through their int16 bits)."""
    t = t.contiguous()
    if t.dtype in (torch.bfloat16, torch.float16):
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    return t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()


def safetensors_header(entries, metadata=None):
    """The bytes a safetensors file starts with (length, JSON header padded
    with spaces to 8 bytes) for entries [(name, dtype, shape, nbytes)] laid
    out one after the other in that order."""
    header = {"__metadata__": dict(metadata)} if metadata else {}
    offset = 0
    for name, dtype, shape, nbytes in entries:
        header[name] = {"dtype": _ST_NAME[dtype], "shape": list(shape),
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text


def write_safetensors(path, tensors, metadata=None):
    """[(name, torch tensor)] of F32 / BF16 / F16 / I32 to path (header padded to 8 bytes)."""
    blobs = [(name, t, tensor_bytes(t)) for name, t in tensors]
    entries = [(name, t.dtype, t.shape, len(data)) for name, t, data in blobs]
    with open(path, "wb") as f:
        f.write(safetensors_header(entries, metadata))
        for _, _, data in blobs:
            f.write(data)


def stored(params, dtype):
    """The parameters as stored in dtype, read back as float32 (what a loader sees)."""
    return {k: v.to(dtype).to(torch.float32) for k, v in params.items()}


def write_folder(folder, cfg, params, dtype, shards=1):
    """config.json and model.safetensors (shards == 1) or
    model-0000i-of-0000n.safetensors + model.safetensors.index.json, tensors
    in dtype, in the order of layer_shapes."""
    write_config(folder, cfg)
    names = [n for n, _ in layer_shapes(cfg)]
    meta = {"format": "pt"}
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"),
                          [(n, params[n].to(dtype)) for n in names], meta)
        return
    per = (len(names) + shards - 1) // shards
    weight_map, total = {}, 0
    for i in range(shards):
        part = names[i * per:(i + 1) * per]
        fname = "model-%05d-of-%05d.safetensors" % (i + 1, shards)
        write_safetensors(os.path.join(folder, fname), [(n, params[n].to(dtype)) for n in part],
                          meta)
        for n in part:
            weight_map[n] = fname
            total += params[n].numel() * params[n].to(dtype).element_size()
    write_index(folder, weight_map, total)


def write_config(folder, cfg):
    """folder/config.json (created with its folder), keys sorted."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")


def write_index(folder, weight_map, total):
    """folder/model.safetensors.index.json: total_size in bytes and the shard of each tensor."""
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
        f.write("\n")


def shard_plan(cfg, dtype, max_shard_bytes):
    """[[(name, shape, nbytes)]] per shard: the tensors of layer_shapes in
    order, a new shard begun whenever the next tensor would take the current
    one past max_shard_bytes (as save_pretrained's max_shard_size does; a
    tensor larger than that gets a shard of its own)."""
    size = torch.tensor([], dtype=dtype).element_size()
    shards, current, used = [], [], 0
    for name, shape in layer_shapes(cfg):
        nbytes = math.prod(shape) * size
        if current and used + nbytes > max_shard_bytes:
            shards.append(current)
            current, used = [], 0
        current.append((name, shape, nbytes))
        used += nbytes
    shards.append(current)
    return shards


def write_random_folder(folder, cfg, dtype, seed, std=0.02, max_shard_bytes=5 * 10 ** 9,
                        chunk=1 << 24):
    """A folder of random weights in dtype (the init_params rule: Normal(0,
    std) matrices, norms 1 + Normal(0, 0.1) or Normal(0, 0.1) for Gemma) for
    any size of model: each shard's header first, then every tensor drawn
    and written chunk elements at a time, so that only one chunk of float32
    numbers is ever in memory. Shards as shard_plan cuts them; one shard is
    model.safetensors, several are model-0000i-of-0000n.safetensors with the
    index. Returns the bytes of weights written."""
    write_config(folder, cfg)
    gen = torch.Generator().manual_seed(seed)
    norm_base = 0.0 if cfg["architectures"][0] in GEMMA else 1.0
    plan = shard_plan(cfg, dtype, max_shard_bytes)
    weight_map, total = {}, 0
    for i, part in enumerate(plan):
        fname = "model.safetensors" if len(plan) == 1 else \
            "model-%05d-of-%05d.safetensors" % (i + 1, len(plan))
        entries = [(name, dtype, shape, nbytes) for name, shape, nbytes in part]
        with open(os.path.join(folder, fname), "wb") as f:
            f.write(safetensors_header(entries, {"format": "pt"}))
            for name, shape, nbytes in part:
                left = math.prod(shape)
                while left > 0:
                    n = min(chunk, left)
                    x = torch.randn(n, generator=gen)
                    x = x.mul_(0.1).add_(norm_base) if is_norm(name) else x.mul_(std)
                    f.write(tensor_bytes(x.to(dtype)))
                    left -= n
                weight_map[name] = fname
                total += nbytes
    if len(plan) > 1:
        write_index(folder, weight_map, total)
    return total
