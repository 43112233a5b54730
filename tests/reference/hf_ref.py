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

  x = embed_tokens[ids]
  per layer:  h = rmsnorm(x, input_layernorm)
              q = h Wq^T (+bq), k = h Wk^T (+bk), v = h Wv^T (+bv)
              split into H (q) and KVH (k, v) heads of hd; [Qwen3] q, k = rmsnorm per head
              q, k rotated (rotate_half RoPE, inv_freq maybe llama3-scaled)
              query head h attends with key/value head h // (H / KVH), causal mask
              x = x + concat_heads(softmax(q k^T / sqrt(hd)) v) Wo^T
              h = rmsnorm(x, post_attention_layernorm)
              x = x + (silu(h Wgate^T) * h Wup^T) Wdown^T
  logits = rmsnorm(x, model.norm) W^T, W = lm_head or embed_tokens (tied)

Llama 3.1 scaling (rope_type "llama3"), with f the plain frequencies and
w = 2 pi / f: f / factor where w > orig / low_freq_factor; f where
w < orig / high_freq_factor; otherwise (1 - s) f / factor + s f with
s = (orig / w - low_freq_factor) / (high_freq_factor - low_freq_factor).

Only torch, numpy, the standard library and model_ref.lora_name are used.
"""
import json
import math
import os
import struct

import numpy as np
import torch

from model_ref import lora_name  # PEFT's adapter names


def layer_shapes(cfg):
    """[(name, shape)] of every tensor of the folder, in file order."""
    C, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H = cfg["num_attention_heads"]
    KVH = cfg.get("num_key_value_heads", H)
    hd = cfg.get("head_dim") or C // H
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
        if arch == "Qwen3ForCausalLM":
            out.append((p + "self_attn.q_norm.weight", (hd,)))
            out.append((p + "self_attn.k_norm.weight", (hd,)))
        out.append((p + "self_attn.o_proj.weight", (C, H * hd)))
        out.append((p + "post_attention_layernorm.weight", (C,)))
        out.append((p + "mlp.gate_proj.weight", (F, C)))
        out.append((p + "mlp.up_proj.weight", (F, C)))
        out.append((p + "mlp.down_proj.weight", (C, F)))
    out.append(("model.norm.weight", (C,)))
    if not cfg.get("tie_word_embeddings", False):
        out.append(("lm_head.weight", (V, C)))
    return out


def init_params(cfg, seed, std=0.2):
    """{name: float32 tensor}: Normal(0, std) matrices and biases, 1 + Normal(0, 0.1) norms."""
    g = torch.Generator().manual_seed(seed)
    params = {}
    for name, shape in layer_shapes(cfg):
        if name.endswith("norm.weight") or name.endswith("layernorm.weight"):
            params[name] = 1.0 + 0.1 * torch.randn(shape, generator=g)
        else:
            params[name] = std * torch.randn(shape, generator=g)
    return params


def rms_norm(x, w, eps):
    """x (..., n) * w (n) / sqrt(mean(x^2) + eps)."""
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * w


def inv_freq(cfg, hd):
    """(hd/2) RoPE frequencies, float32 as Hugging Face computes them, with
    the llama3 scaling when config.json asks for it."""
    theta = cfg.get("rope_theta", 10000.0)
    f = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    rs = cfg.get("rope_scaling")
    if not rs:
        return f
    kind = rs.get("rope_type", rs.get("type"))
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


def forward(cfg, params, ids, dtype=torch.float64, lora=None):
    """ids (T) -> (logits (T, V), hidden (L+1, T, C)): the residual stream
    after the embedding and after every layer, then the logits. lora: LoRA
    adapters on q, k, v, o (see adapted), or None. Differentiable in params
    and the adapters."""
    P = {k: v.to(dtype) for k, v in params.items()}
    C, H = cfg["hidden_size"], cfg["num_attention_heads"]
    KVH = cfg.get("num_key_value_heads", H)
    hd = cfg.get("head_dim") or C // H
    eps = cfg.get("rms_norm_eps", 1e-6)
    arch = cfg["architectures"][0]
    T = len(ids)
    freqs = inv_freq(cfg, hd).to(dtype)
    pos = torch.arange(T)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    x = P["model.embed_tokens.weight"][torch.as_tensor(ids)]
    hidden = [x]
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        h = rms_norm(x, P[p + "input_layernorm.weight"], eps)
        proj = {}
        for n in "qkv":
            y = adapted(h, P[p + "self_attn.%s_proj.weight" % n], lora, l, n)
            if arch == "Qwen2ForCausalLM":
                y = y + P[p + "self_attn.%s_proj.bias" % n]
            proj[n] = y
        q = proj["q"].view(T, H, hd)
        k = proj["k"].view(T, KVH, hd)
        v = proj["v"].view(T, KVH, hd)
        if arch == "Qwen3ForCausalLM":
            q = rms_norm(q, P[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, P[p + "self_attn.k_norm.weight"], eps)
        q, k = rope(q, freqs, pos), rope(k, freqs, pos)
        group = H // KVH
        k = k.repeat_interleave(group, dim=1)       # head h reads kv head h // group
        v = v.repeat_interleave(group, dim=1)
        scores = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd)
        scores = scores.masked_fill(~causal, float("-inf"))
        att = torch.softmax(scores, dim=-1)
        out = torch.einsum("hts,shd->thd", att, v).reshape(T, H * hd)
        x = x + adapted(out, P[p + "self_attn.o_proj.weight"], lora, l, "o")
        h = rms_norm(x, P[p + "post_attention_layernorm.weight"], eps)
        gate = h @ P[p + "mlp.gate_proj.weight"].T
        up = h @ P[p + "mlp.up_proj.weight"].T
        x = x + (torch.nn.functional.silu(gate) * up) @ P[p + "mlp.down_proj.weight"].T
        hidden.append(x)
    head = P["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", False) \
        else P["lm_head.weight"]
    logits = rms_norm(x, P["model.norm.weight"], eps) @ head.T
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


def write_safetensors(path, tensors, metadata=None):
    """[(name, torch tensor)] of F32 / BF16 / F16 / I32 to path (header padded to 8 bytes)."""
    header = {"__metadata__": dict(metadata)} if metadata else {}
    blobs, offset = [], 0
    for name, t in tensors:
        data = tensor_bytes(t)
        header[name] = {"dtype": _ST_NAME[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def stored(params, dtype):
    """The parameters as stored in dtype, read back as float32 (what a loader sees)."""
    return {k: v.to(dtype).to(torch.float32) for k, v in params.items()}


def write_folder(folder, cfg, params, dtype, shards=1):
    """config.json and model.safetensors (shards == 1) or
    model-0000i-of-0000n.safetensors + model.safetensors.index.json, tensors
    in dtype, in the order of layer_shapes."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")
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
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
        f.write("\n")
