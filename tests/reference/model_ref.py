"""model_ref.py - an independent PyTorch reference of the seqrep decoder.

Written from the formulas in tests/reference/README.md, not from the C code:
  token embedding
  L x [ RMSNorm -> multi-head attention (RoPE / none / real positions) -> residual
        RMSNorm -> SwiGLU MLP -> residual ]
  final RMSNorm -> LM head (tied to the embedding unless cfg["tied"] == 0)

RePo layers (cfg["repo_from"] present: layers repo_from..L-1, position plan
'repo') compute their own positions from the attention input h:
  r = silu(h Wg^T) * (h Wc^T),  z = r Wz^T     Wg, Wc (C/8, C); Wz (H, C/8)
and rotate q and k by z (per token and head) instead of the token index.

Parameters are a dict keyed by Hugging Face Llama tensor names, so a seqrep
checkpoint maps onto it one to one. Also here: the optimiser step (AdamW with
global-norm clipping, written out by hand) and a small safetensors reader and
writer (json + struct; no third-party package).

Only torch, numpy and the standard library are used.
"""

import json
import math
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

IGNORE = -1  # target label that the loss skips

# Tolerance of the golden comparison (tests/unit/model/test_golden.c uses the same rule):
# element a of a result matches golden element b of a tensor whose golden
# values have root-mean-square rms when |a - b| <= GOLDEN_REL * (max(|a|, |b|) + rms).
GOLDEN_REL = 1e-4

CONFIG_KEYS = ("vocab_size", "d_model", "n_layers", "n_heads", "d_ff", "max_seq_len",
               "rope_theta", "norm_eps", "tied")


# ---- parameters ---------------------------------------------------------------

def repo_from(cfg):
    """First RePo layer of cfg, or None when the model has no RePo layers."""
    return cfg.get("repo_from")


def param_shapes(cfg):
    """List of (hf_name, shape) of every parameter, in checkpoint order
    (a RePo layer's gate, content and z projections follow its MLP)."""
    V, C, F_, L = cfg["vocab_size"], cfg["d_model"], cfg["d_ff"], cfg["n_layers"]
    first_repo = repo_from(cfg)
    shapes = [("model.embed_tokens.weight", (V, C))]
    for l in range(L):
        pre = "model.layers.%d." % l
        shapes += [
            (pre + "input_layernorm.weight", (C,)),
            (pre + "self_attn.q_proj.weight", (C, C)),
            (pre + "self_attn.k_proj.weight", (C, C)),
            (pre + "self_attn.v_proj.weight", (C, C)),
            (pre + "self_attn.o_proj.weight", (C, C)),
            (pre + "post_attention_layernorm.weight", (C,)),
            (pre + "mlp.gate_proj.weight", (F_, C)),
            (pre + "mlp.up_proj.weight", (F_, C)),
            (pre + "mlp.down_proj.weight", (C, F_)),
        ]
        if first_repo is not None and l >= first_repo:
            P, H = C // 8, cfg["n_heads"]
            shapes += [
                (pre + "self_attn.repo.gate_proj.weight", (P, C)),
                (pre + "self_attn.repo.content_proj.weight", (P, C)),
                (pre + "self_attn.repo.z_proj.weight", (H, P)),
            ]
    shapes.append(("model.norm.weight", (C,)))
    if not cfg["tied"]:
        shapes.append(("lm_head.weight", (V, C)))
    return shapes


def init_params(cfg, seed, matrix_std=0.3, norm_std=0.1, dtype=torch.float32):
    """Random parameters, large enough that attention is far from uniform:
    matrices ~ Normal(0, matrix_std), norm weights ~ 1 + norm_std * Normal(0, 1).
    Returns {hf_name: tensor} (leaf tensors, requires_grad=True)."""
    gen = torch.Generator().manual_seed(seed)
    params = {}
    for name, shape in param_shapes(cfg):
        if len(shape) == 2:
            t = torch.randn(shape, generator=gen, dtype=torch.float32) * matrix_std
        else:
            t = 1.0 + norm_std * torch.randn(shape, generator=gen, dtype=torch.float32)
        params[name] = t.to(dtype).requires_grad_(True)
    return params


# ---- the forward pass ---------------------------------------------------------

def rms_norm(x, w, eps):
    """x (..., C), w (C): x * rstd * w with rstd = 1 / sqrt(mean(x^2) + eps)."""
    rstd = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
    return x * rstd * w


def rope_inv_freq(theta, hd, dtype=torch.float32):
    """(hd/2) frequencies 1 / theta^(2i/hd), computed in float32 like Hugging Face."""
    inv = 1.0 / (theta ** (torch.arange(0, hd, 2).float() / hd))
    return inv.to(dtype)


def rotate_half(x):
    """(..., hd) -> cat(-x[hd/2:], x[:hd/2])."""
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x, pos, theta):
    """x (B, T, H, hd) rotated by pos (B, T, H) (real-valued) in the
    rotate_half layout: angle[..., i] = pos * inv_freq[i], repeated on both halves."""
    hd = x.shape[-1]
    inv = rope_inv_freq(theta, hd, x.dtype)
    angle = pos.unsqueeze(-1) * inv                 # (B, T, H, hd/2)
    angle = torch.cat((angle, angle), dim=-1)       # (B, T, H, hd)
    return x * torch.cos(angle) + rotate_half(x) * torch.sin(angle)


def visible_keys(kind, lengths, T):
    """Boolean (B, T, T) mask, [b, t, s] True when query t of row b sees key s:
    s < end with end = min(t+1, len) (causal) or len (bidirectional)."""
    t = torch.arange(T).view(1, T, 1)
    s = torch.arange(T).view(1, 1, T)
    L = lengths.view(-1, 1, 1).long()
    if kind == "causal":
        end = torch.minimum(t + 1, L)
    elif kind == "bidirectional":
        end = L.expand(-1, T, 1)
    else:
        raise ValueError("unknown mask kind %r" % kind)
    return s < end


def repo_positions(params, pre, h):
    """RePo positions z (B, T, H) of the layer with name prefix pre from its
    attention input h (B, T, C): z = (silu(h Wg^T) * (h Wc^T)) Wz^T."""
    gate = h @ params[pre + "self_attn.repo.gate_proj.weight"].t()
    content = h @ params[pre + "self_attn.repo.content_proj.weight"].t()
    return (F.silu(gate) * content) @ params[pre + "self_attn.repo.z_proj.weight"].t()


def lora_name(layer, proj, which):
    """The PEFT name of a LoRA weight: proj in q, k, v, o; which in A, B."""
    return "base_model.model.model.layers.%d.self_attn.%s_proj.lora_%s.weight" % (layer, proj, which)


def project(h, params, pre, l, proj, lora):
    """h @ W^T for the layer's proj (q, k, v, o), plus the LoRA update
    (alpha / rank) * (h @ A^T) @ B^T when lora = {"scale": s, "weights": {...}}
    holds an adapter for it (no dropout: the golden case is deterministic)."""
    y = h @ params[pre + "self_attn.%s_proj.weight" % proj].t()
    if lora is not None and lora_name(l, proj, "A") in lora["weights"]:
        a = lora["weights"][lora_name(l, proj, "A")]
        b = lora["weights"][lora_name(l, proj, "B")]
        y = y + lora["scale"] * ((h @ a.t()) @ b.t())
    return y


def forward(params, cfg, ids, lengths, positions, mask_plan, pos_plan, real_pos=None,
            repo_z=None, lora=None):
    """Logits (B, T, V) of token ids (B, T).
    lengths (B): valid tokens per row (right padding); positions (B, T): integer
    positions of 'rope' layers; mask_plan / pos_plan: one name per layer
    ('causal' | 'bidirectional', 'rope' | 'none' | 'real' | 'repo'); real_pos
    (L, B, T, H): positions per token and head of 'real' layers. repo_z, a
    list, receives the z (B, T, H) of every layer (None where not 'repo').
    lora: adapters on the attention projections (see project), or None."""
    C, H, L = cfg["d_model"], cfg["n_heads"], cfg["n_layers"]
    hd = C // H
    eps, theta = cfg["norm_eps"], cfg["rope_theta"]
    B, T = ids.shape
    wte = params["model.embed_tokens.weight"]
    x = wte[ids.long()]                                        # (B, T, C)
    int_pos = positions.to(wte.dtype).unsqueeze(-1).expand(B, T, H)
    for l in range(L):
        pre = "model.layers.%d." % l
        h = rms_norm(x, params[pre + "input_layernorm.weight"], eps)
        q = project(h, params, pre, l, "q", lora).view(B, T, H, hd)
        k = project(h, params, pre, l, "k", lora).view(B, T, H, hd)
        v = project(h, params, pre, l, "v", lora).view(B, T, H, hd)
        if pos_plan[l] == "rope":
            q, k = apply_rope(q, int_pos, theta), apply_rope(k, int_pos, theta)
        elif pos_plan[l] == "real":
            q, k = apply_rope(q, real_pos[l], theta), apply_rope(k, real_pos[l], theta)
        elif pos_plan[l] == "repo":
            z = repo_positions(params, pre, h)
            q, k = apply_rope(q, z, theta), apply_rope(k, z, theta)
        elif pos_plan[l] != "none":
            raise ValueError("unknown position kind %r" % pos_plan[l])
        if repo_z is not None:
            repo_z.append(z if pos_plan[l] == "repo" else None)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))       # (B, H, T, hd)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)    # (B, H, T, T)
        seen = visible_keys(mask_plan[l], lengths, T).unsqueeze(1)
        scores = scores.masked_fill(~seen, float("-inf"))
        att = torch.softmax(scores, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + project(y, params, pre, l, "o", lora)
        h = rms_norm(x, params[pre + "post_attention_layernorm.weight"], eps)
        gate = h @ params[pre + "mlp.gate_proj.weight"].t()
        up = h @ params[pre + "mlp.up_proj.weight"].t()
        x = x + (F.silu(gate) * up) @ params[pre + "mlp.down_proj.weight"].t()
    h = rms_norm(x, params["model.norm.weight"], eps)
    head = wte if cfg["tied"] else params["lm_head.weight"]
    return h @ head.t()


def lm_loss(logits, targets):
    """Mean cross-entropy over positions whose target != IGNORE."""
    V = logits.shape[-1]
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1).long(),
                           ignore_index=IGNORE, reduction="mean")


def worst_violation(result, golden, rel=GOLDEN_REL):
    """max over elements of |a-b| / (rel * (max(|a|,|b|) + rms(golden))):
    the comparison passes when this is <= 1. Exactly equal elements count 0."""
    a, b = np.asarray(result, np.float64), np.asarray(golden, np.float64)
    rms = float(np.sqrt(np.mean(b * b))) if b.size else 0.0
    diff = np.abs(a - b)
    tol = rel * (np.maximum(np.abs(a), np.abs(b)) + rms)
    ratio = np.where(diff == 0, 0.0, diff / np.where(tol > 0, tol, 1e-300))
    return float(np.max(ratio)) if ratio.size else 0.0


# ---- the optimiser ------------------------------------------------------------

def grad_global_norm(grads):
    """sqrt(sum of squares of every gradient element), each tensor once."""
    total = sum(float((g.double() ** 2).sum()) for g in grads.values())
    return math.sqrt(total)


def adamw_step(params, grads, state, hp, lr, step):
    """One AdamW update in place (under no_grad), step 1-based.
    1. norm = global L2 norm of grads; coef = grad_clip / norm if norm > grad_clip
       (and grad_clip > 0) else 1; g = coef * grad.
    2. per parameter: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
       mhat = m / (1 - b1^step); vhat = v / (1 - b2^step);
       p -= lr * (mhat / (sqrt(vhat) + eps) + wd * p), wd only for 2-D tensors.
    state: {name: (m, v)}, created on first use. Returns the norm before clipping."""
    b1, b2, eps, wd, clip = (hp["beta1"], hp["beta2"], hp["eps"], hp["weight_decay"],
                             hp["grad_clip"])
    norm = grad_global_norm(grads)
    coef = clip / norm if (clip > 0 and norm > clip) else 1.0
    bc1 = 1.0 - b1 ** step
    bc2 = 1.0 - b2 ** step
    with torch.no_grad():
        for name, p in params.items():
            g = grads[name] * coef
            if name not in state:
                state[name] = (torch.zeros_like(p), torch.zeros_like(p))
            m, v = state[name]
            m.mul_(b1).add_((1.0 - b1) * g)
            v.mul_(b2).add_((1.0 - b2) * g * g)
            mhat = m / bc1
            vhat = v / bc2
            update = mhat / (torch.sqrt(vhat) + eps)
            if p.dim() == 2:
                update = update + wd * p
            p.sub_(lr * update)
    return norm


# ---- safetensors ----------------------------------------------------------------

_DTYPES = {"F32": np.float32, "I32": np.int32, "F64": np.float64, "I64": np.int64}
_NAMES = {np.dtype(np.float32): "F32", np.dtype(np.int32): "I32"}


def write_safetensors(path, tensors, metadata=None):
    """Write [(name, numpy array)] (float32 or int32, in the given order) and
    metadata {str: str} to path, atomically (temporary file + rename).
    Layout: u64 little-endian header length, JSON header padded with spaces to
    a multiple of 8 bytes, then the raw little-endian data back to back."""
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs, offset = [], 0
    for name, arr in tensors:
        arr = np.ascontiguousarray(arr)
        if arr.dtype not in _NAMES:
            raise ValueError("%s: unsupported dtype %s" % (name, arr.dtype))
        data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": _NAMES[arr.dtype], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)
    os.replace(tmp, path)


def read_safetensors(path):
    """Read a safetensors file: returns ({name: numpy array}, {meta key: value}).
    Checks the header length, that offsets lie inside the data and match shapes."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError("%s: truncated (no header length)" % path)
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ValueError("%s: header length %d past end of file" % (path, n))
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    meta = header.pop("__metadata__", {}) or {}
    tensors = {}
    for name, d in header.items():
        if d["dtype"] not in _DTYPES:
            raise ValueError("%s: tensor %s has unsupported dtype %s" % (path, name, d["dtype"]))
        dt = np.dtype(_DTYPES[d["dtype"]]).newbyteorder("<")
        begin, end = d["data_offsets"]
        count = int(np.prod(d["shape"])) if d["shape"] else 1
        if not (0 <= begin <= end <= len(data)) or end - begin != count * dt.itemsize:
            raise ValueError("%s: tensor %s has bad data_offsets" % (path, name))
        arr = np.frombuffer(data[begin:end], dtype=dt).reshape(d["shape"])
        tensors[name] = arr.astype(dt.newbyteorder("="))
    return tensors, meta


# ---- seqrep checkpoints -----------------------------------------------------------

def default_vocab(V):
    """The six special words, then w6 .. w{V-1}."""
    special = ["<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>"]
    return special[:V] + ["w%d" % i for i in range(len(special), V)]


def save_checkpoint(path, cfg, params, vocab, manifest):
    """Write params as a seqrep checkpoint: HF tensor names, metadata
    format=pt, seqrep.config (JSON; "repo_from" only for a RePo model),
    seqrep.vocab (JSON list), seqrep.manifest (JSON)."""
    tensors = [(name, params[name].detach().to(torch.float32).numpy())
               for name, _ in param_shapes(cfg)]
    config = {k: cfg[k] for k in CONFIG_KEYS}
    if repo_from(cfg) is not None:
        config["repo_from"] = repo_from(cfg)
    meta = {
        "format": "pt",
        "seqrep.config": json.dumps(config),
        "seqrep.vocab": json.dumps(list(vocab)),
        "seqrep.manifest": json.dumps(manifest),
    }
    write_safetensors(path, tensors, meta)


def load_checkpoint(path, strict=True):
    """Read a seqrep checkpoint: returns (cfg, params {hf_name: float32 tensor},
    vocab list or None, metadata, other {name: array}). Raises ValueError when
    a parameter is missing or of the wrong shape for the config, or the vocab
    length differs from vocab_size. Tensors that are not parameters go to
    `other` (for example optimiser state); with strict=True they are an error,
    as are tensors named like parameters that the config does not have."""
    tensors, meta = read_safetensors(path)
    if "seqrep.config" not in meta:
        raise ValueError("%s: no seqrep.config metadata" % path)
    raw = json.loads(meta["seqrep.config"])
    missing = [k for k in CONFIG_KEYS if k not in raw]
    if missing:
        raise ValueError("%s: seqrep.config lacks %s" % (path, ", ".join(missing)))
    cfg = {k: raw[k] for k in CONFIG_KEYS}
    for k in CONFIG_KEYS:
        if k not in ("rope_theta", "norm_eps"):
            cfg[k] = int(cfg[k])
    cfg["rope_theta"] = float(cfg["rope_theta"])
    cfg["norm_eps"] = float(cfg["norm_eps"])
    if "repo_from" in raw:
        cfg["repo_from"] = int(raw["repo_from"])
    expected = dict(param_shapes(cfg))
    extra = sorted(set(tensors) - set(expected))
    param_like = [n for n in extra if n.startswith(("model.", "lm_head."))]
    if param_like or (strict and extra):
        raise ValueError("%s: unexpected tensors %s" % (path, ", ".join(param_like or extra)))
    params = {}
    for name, shape in expected.items():
        if name not in tensors:
            raise ValueError("%s: missing tensor %s" % (path, name))
        if tuple(tensors[name].shape) != tuple(shape):
            raise ValueError("%s: tensor %s has shape %s, expected %s"
                             % (path, name, list(tensors[name].shape), list(shape)))
        params[name] = torch.from_numpy(tensors[name].astype(np.float32))
    vocab = json.loads(meta["seqrep.vocab"]) if "seqrep.vocab" in meta else None
    if vocab is not None and len(vocab) != cfg["vocab_size"]:
        raise ValueError("%s: seqrep.vocab has %d words, vocab_size is %d"
                         % (path, len(vocab), cfg["vocab_size"]))
    other = {n: tensors[n] for n in extra}
    return cfg, params, vocab, meta, other
