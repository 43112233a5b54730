"""make_hf_golden.py - tiny random Hugging Face model folders and their golden
outputs, from the reference of hf_ref.py.

Usage:
  make_hf_golden.py OUTDIR [CASE...]     the golden cases into OUTDIR/<case>/
  make_hf_golden.py --random SHAPE DIR   one random folder of a real model's
                                         shape (SHAPES: smollm2-135m,
                                         qwen3-0.6b, tinyllama-1.1b,
                                         qwen2-0.5b, gemma-7b, gemma-2-2b,
                                         gemma-2-9b, gemma-3-1b, mistral-7b),
                                         BF16, std 0.02, no golden outputs
                                         (for measuring)

The cases: llama_gqa (F32, untied), mistral (F16), qwen2_bias (BF16, tied),
qwen3_qknorm (F32, head_dim 16), llama3_rope (BF16, two shards),
llama_tokenizer (below), gemma_mqa (GemmaForCausalLM, BF16, one kv head,
head_dim 16 with hidden 48, hidden_act "gelu"), gemma2_window
(Gemma2ForCausalLM, BF16 in two shards, query_pre_attn_scalar 24 with
head_dim 16, attention and final soft-capping 3.0, sliding_window 4 on layers
0 and 2), gemma3_local (Gemma3ForCausalLM, F32, sliding_window 5 on layers 0
and 2 by sliding_window_pattern 2 with RoPE base 10000, layer 1 global with
base 1e6 and linear rope_scaling 8), gemma3_tokenizer (below). The Gemma
configs leave tie_word_embeddings out: tied by default.

Each golden folder holds config.json (real field names), the weights in the
real tensor names (model.safetensors, or model.safetensors.index.json plus
shards), and golden.safetensors: "ids" (I32, (T)), "logits" (F32, (T, V)) and
"hidden" (F32, (L+1, T, C): the residual stream after the embedding (times
sqrt(C) for Gemma) and after each layer), computed in float64 from the
weights as stored (BF16 and F16 weights rounded first).
tests/unit/model/test_hf_model.c compares the C loader and model
with them under the golden tolerance of model_ref.worst_violation.
train.safetensors holds, for the next-token targets of those ids, the loss,
every gradient and the weights after two AdamW steps (TRAIN_HYPER) of
full training ("full.*") and of LoRA training on q, k, v, o with the base
frozen ("lora.*": rank 4, alpha 8, the adapters' start in "lora.init.*");
tests/unit/model/test_hf_train.c compares the C backward and optimiser with them. A case
is kept only if float32 agrees with float64 to MARGIN of that tolerance
(TRAIN_MARGIN for the training files).

The tokenizer cases hold no training files but a tokenizer and greedy.txt:
what `seqrep generate DIR --prompt "hello world" --greedy --max-tokens 8
--lines 1` must print, the greedy continuation computed here in float64 (ids
without a token never taken, stopping at the BOS or EOS), decoded by the
tokenizer's own decoder, the prompt's ids being those @lenml/tokenizers gives
(tests/golden/tokenizers/<name>.json, with the template's BOS).
llama_tokenizer: tokenizer.json and tokenizer_config.json of
tests/golden/tokenizers/tiny_bytelevel (278 ids, byte-level BPE) in a Llama
of vocab_size 288 whose last rows have no token, as real models pad their
embedding. gemma3_tokenizer: those of tiny_spm (303 ids, SentencePiece-style
BPE with byte fallback, "<s>" put first by add_bos_token, the decoder
Replace "▁" -> " ", ByteFallback, Fuse, Strip one leading space) in a
Gemma3 of vocab_size 320 whose layer_types (layer 0 global, 1 and 2 sliding
with window 6) no sliding_window_pattern could give. e2e_hf_model.sh runs
every command on llama_tokenizer.

--random writes tensor by tensor (hf_ref.write_random_folder): the header
first, then the numbers drawn 16M at a time, so a 7B folder never holds more
than one chunk in memory; shards of at most SHARD_BYTES with an index, as
save_pretrained cuts them.
"""
import json
import math
import shutil
import os
import sys
import time

import numpy as np

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_ref  # noqa: E402
import model_ref  # noqa: E402
from make_golden import HYPER, LORA, LORA_B_STD  # noqa: E402  the same recipe as tests/golden

IDS = [1, 17, 5, 42, 99, 3, 64, 7, 23, 88, 11, 2]
MARGIN = 0.1
# training golden files: next-token targets of IDS, the last position ignored
TARGETS = IDS[1:] + [model_ref.IGNORE]
# make_golden's recipe but for eps: with eps 1e-8 AdamW's first step is about
# sign(g), which flips between float32 and float64 where a gradient of these
# 12-token batches is near zero (float32 then missed float64 by up to 12 times
# the tolerance after two steps); with eps 1e-3 the update is a smooth
# function of the gradient.
TRAIN_HYPER = dict(HYPER, eps=1e-3)
# float32 must agree with float64 to this fraction of the tolerance in the
# training files: their embedding gradients (most rows exactly zero, so the
# tensor's rms floor is small) come to 0.51 in float32 for llama_gqa.
TRAIN_MARGIN = 0.6


def llama(**kw):
    """A tiny LlamaForCausalLM config with kw overriding fields."""
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
           "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128,
           "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
           "hidden_act": "silu", "tie_word_embeddings": False, "attention_bias": False,
           "mlp_bias": False, "rope_scaling": None, "torch_dtype": "float32"}
    cfg.update(kw)
    return cfg


def gemma(**kw):
    """A tiny GemmaForCausalLM config with kw overriding fields: Gemma 1's
    fields, hidden_act "gelu" as google/gemma-7b's config.json has it, no
    tie_word_embeddings (tied by default)."""
    cfg = {"architectures": ["GemmaForCausalLM"], "model_type": "gemma", "attention_bias": False,
           "head_dim": 16, "hidden_act": "gelu", "hidden_size": 48, "intermediate_size": 64,
           "max_position_embeddings": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
           "num_key_value_heads": 1, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
           "rope_scaling": None, "torch_dtype": "bfloat16", "vocab_size": 160}
    cfg.update(kw)
    return cfg


def gemma2(**kw):
    """A tiny Gemma2ForCausalLM config with kw overriding fields (Gemma 2's
    fields: soft-capping, sliding_window, query_pre_attn_scalar, both
    activation fields; tied by default)."""
    cfg = {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "attention_bias": False,
           "attn_logit_softcapping": 3.0, "cache_implementation": "hybrid",
           "final_logit_softcapping": 3.0, "head_dim": 16, "hidden_act": "gelu_pytorch_tanh",
           "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 64, "intermediate_size": 96,
           "max_position_embeddings": 256, "num_attention_heads": 4, "num_hidden_layers": 3,
           "num_key_value_heads": 2, "query_pre_attn_scalar": 24, "rms_norm_eps": 1e-6,
           "rope_theta": 10000.0, "sliding_window": 4, "torch_dtype": "bfloat16",
           "vocab_size": 150}
    cfg.update(kw)
    return cfg


def gemma3(**kw):
    """A tiny Gemma3ForCausalLM config (model_type gemma3_text) with kw
    overriding fields (Gemma 3's fields: two RoPE bases, sliding_window_pattern,
    no soft-capping; tied by default)."""
    cfg = {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text",
           "attention_bias": False, "attn_logit_softcapping": None,
           "cache_implementation": "hybrid", "final_logit_softcapping": None, "head_dim": 32,
           "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 64, "intermediate_size": 96,
           "max_position_embeddings": 256, "num_attention_heads": 4, "num_hidden_layers": 3,
           "num_key_value_heads": 2, "query_pre_attn_scalar": 32, "rms_norm_eps": 1e-6,
           "rope_local_base_freq": 10000.0,
           "rope_scaling": {"rope_type": "linear", "factor": 8.0}, "rope_theta": 1000000.0,
           "sliding_window": 5, "sliding_window_pattern": 2, "torch_dtype": "float32",
           "vocab_size": 170}
    cfg.update(kw)
    return cfg


def cases():
    """(name, config, stored dtype, shards, seed) of every golden case."""
    return [
        ("llama_gqa", llama(), torch.float32, 1, 21),
        ("mistral", llama(architectures=["MistralForCausalLM"], model_type="mistral",
                          hidden_size=48, num_attention_heads=6, num_key_value_heads=2,
                          intermediate_size=80, vocab_size=150, sliding_window=4096,
                          torch_dtype="float16"), torch.float16, 1, 22),
        ("qwen2_bias", llama(architectures=["Qwen2ForCausalLM"], model_type="qwen2",
                             hidden_size=32, num_attention_heads=4, num_key_value_heads=2,
                             intermediate_size=64, vocab_size=200, rope_theta=1000000.0,
                             rms_norm_eps=1e-6, tie_word_embeddings=True,
                             use_sliding_window=False, sliding_window=32768,
                             torch_dtype="bfloat16"), torch.bfloat16, 1, 23),
        ("qwen3_qknorm", llama(architectures=["Qwen3ForCausalLM"], model_type="qwen3",
                               hidden_size=32, num_attention_heads=4, num_key_value_heads=2,
                               head_dim=16, intermediate_size=64, vocab_size=160,
                               rope_theta=1000000.0, rms_norm_eps=1e-6,
                               tie_word_embeddings=True), torch.float32, 1, 24),
        ("llama3_rope", llama(hidden_size=64, num_attention_heads=4, num_key_value_heads=4,
                              rope_theta=500000.0, vocab_size=128,
                              rope_scaling={"rope_type": "llama3", "factor": 8.0,
                                            "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                            "original_max_position_embeddings": 64},
                              torch_dtype="bfloat16"), torch.bfloat16, 2, 25),
        ("llama_tokenizer", llama(hidden_size=32, intermediate_size=64, num_attention_heads=4,
                                  num_key_value_heads=2, vocab_size=288, max_position_embeddings=256,
                                  tie_word_embeddings=True), torch.float32, 1, 26),
        ("gemma_mqa", gemma(), torch.bfloat16, 1, 27),
        ("gemma2_window", gemma2(), torch.bfloat16, 2, 28),
        ("gemma3_local", gemma3(), torch.float32, 1, 29),
        # layer_types (layer 0 global, 1 and 2 sliding) is no sliding_window_pattern's
        # layout, and wins over the pattern 6 beside it
        ("gemma3_tokenizer", gemma3(hidden_size=32, intermediate_size=64, num_attention_heads=2,
                                    num_key_value_heads=1, head_dim=16, query_pre_attn_scalar=24,
                                    vocab_size=320, sliding_window=6, sliding_window_pattern=6,
                                    layer_types=["full_attention", "sliding_attention",
                                                 "sliding_attention"],
                                    rope_scaling=None), torch.float32, 1, 52),
    ]


TOKENIZER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "tokenizers")
# the cases that hold a tokenizer (tests/golden/tokenizers/<name>) and greedy.txt
TOKENIZERS = {"llama_tokenizer": "tiny_bytelevel", "gemma3_tokenizer": "tiny_spm"}
PROMPT = "hello world"
GREEDY_STEPS = 8
GREEDY_MIN_GAP = 1e-3         # the likeliest logit leads the next by at least this


def byte_level_text(pieces):
    """The text of byte-level BPE pieces (GPT-2's bytes_to_unicode reversed)."""
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    chars, extra = {}, 0
    for b in range(256):
        if b in keep:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    raw = bytes(chars[c] for piece in pieces for c in piece)
    return raw.decode("utf-8", errors="replace")


def byte_fallback(pieces):
    """The ByteFallback decoder: each run of "<0xNN>" pieces becomes its
    bytes' UTF-8 text, or one U+FFFD per piece when they are not valid UTF-8;
    other pieces stay."""
    out, run = [], []
    for piece in pieces + [None]:
        if piece is not None and len(piece) == 6 and piece.startswith("<0x") and \
                piece.endswith(">") and all(c in "0123456789ABCDEF" for c in piece[3:5]):
            run.append(int(piece[3:5], 16))
            continue
        if run:
            try:
                out.append(bytes(run).decode("utf-8"))
            except UnicodeDecodeError:
                out.extend(["\ufffd"] * len(run))
            run = []
        if piece is not None:
            out.append(piece)
    return out


def decoded_text(decoder, pieces):
    """The text tokenizer.json's decoder makes of pieces: ByteLevel, or a
    Sequence of Replace (a string pattern, in every piece), ByteFallback, Fuse
    (all pieces into one) and Strip (up to start leading and stop trailing
    copies of content, from every piece)."""
    if decoder["type"] == "ByteLevel":
        return byte_level_text(pieces)
    steps = decoder["decoders"] if decoder["type"] == "Sequence" else [decoder]
    for st in steps:
        if st["type"] == "Replace":
            pieces = [p.replace(st["pattern"]["String"], st["content"]) for p in pieces]
        elif st["type"] == "ByteFallback":
            pieces = byte_fallback(pieces)
        elif st["type"] == "Fuse":
            pieces = ["".join(pieces)]
        elif st["type"] == "Strip":
            c, out = st["content"], []
            for p in pieces:
                for _ in range(st["start"]):
                    p = p[len(c):] if p.startswith(c) else p
                for _ in range(st["stop"]):
                    p = p[:-len(c)] if p.endswith(c) else p
                out.append(p)
            pieces = out
        else:
            raise RuntimeError("decoder step %s is not described here" % st["type"])
    return "".join(pieces)


def write_tokenizer_case(folder, name, cfg, params):
    """Copy the case's tokenizer into folder and write greedy.txt: PROMPT's
    ids as @lenml/tokenizers gives them (tests/golden/tokenizers/<tok>.json,
    the template's BOS first), then up to GREEDY_STEPS greedy tokens of the
    float64 model among the ids with a token, stopping before the BOS or EOS
    of tokenizer_config.json; the ids after the BOS, special ones left out,
    decoded by the tokenizer's decoder, then a newline."""
    tok_dir = os.path.join(TOKENIZER_DIR, TOKENIZERS[name])
    for fname in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(tok_dir, fname), os.path.join(folder, fname))
    tok = json.load(open(os.path.join(tok_dir, "tokenizer.json")))
    tok_cfg = json.load(open(os.path.join(tok_dir, "tokenizer_config.json")))
    text = {i: t for t, i in tok["model"]["vocab"].items()}
    special = {a["id"] for a in tok["added_tokens"] if a["special"]}
    for a in tok["added_tokens"]:
        text[a["id"]] = a["content"]
    ids_of = {t: i for i, t in text.items()}
    bos, eos = ids_of[tok_cfg["bos_token"]], ids_of[tok_cfg["eos_token"]]
    expected = json.load(open(tok_dir + ".json"))["cases"]
    ids = list(next(c["ids"] for c in expected if c["text"] == PROMPT))
    assert ids[0] == bos, ids
    for _ in range(GREEDY_STEPS):
        logits, _ = hf_ref.forward(cfg, params, ids, torch.float64)
        row = [(float(v), i) for i, v in enumerate(logits[-1]) if i in text]
        row.sort(reverse=True)
        if row[0][0] - row[1][0] < GREEDY_MIN_GAP:
            raise RuntimeError("greedy step %d: the top two logits are too close" % len(ids))
        if row[0][1] in (bos, eos):
            break
        ids.append(row[0][1])
    kept = [i for i in ids[1:] if i not in special]
    with open(os.path.join(folder, "greedy.txt"), "w") as f:
        f.write(decoded_text(tok["decoder"], [text[i] for i in kept]) + "\n")


SHAPES = {
    "smollm2-135m": llama(hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                          num_attention_heads=9, num_key_value_heads=3, vocab_size=49152,
                          max_position_embeddings=8192, rope_theta=100000.0,
                          tie_word_embeddings=True, torch_dtype="bfloat16"),
    "qwen3-0.6b": llama(architectures=["Qwen3ForCausalLM"], model_type="qwen3",
                        hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
                        num_attention_heads=16, num_key_value_heads=8, head_dim=128,
                        vocab_size=151936, max_position_embeddings=40960,
                        rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True,
                        torch_dtype="bfloat16"),
    "tinyllama-1.1b": llama(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22,
                            num_attention_heads=32, num_key_value_heads=4, vocab_size=32000,
                            max_position_embeddings=2048, torch_dtype="bfloat16"),
    "qwen2-0.5b": llama(architectures=["Qwen2ForCausalLM"], model_type="qwen2",
                        hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                        num_attention_heads=14, num_key_value_heads=2, vocab_size=151936,
                        max_position_embeddings=32768, rope_theta=1000000.0, rms_norm_eps=1e-6,
                        tie_word_embeddings=True, use_sliding_window=False,
                        torch_dtype="bfloat16"),
    "gemma-7b": gemma(hidden_size=3072, intermediate_size=24576, num_hidden_layers=28,
                      num_attention_heads=16, num_key_value_heads=16, head_dim=256,
                      vocab_size=256000, max_position_embeddings=8192, hidden_act="gelu"),
    "gemma-2-2b": gemma2(hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
                         num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                         vocab_size=256000, max_position_embeddings=8192,
                         query_pre_attn_scalar=256, attn_logit_softcapping=50.0,
                         final_logit_softcapping=30.0, sliding_window=4096),
    "gemma-2-9b": gemma2(hidden_size=3584, intermediate_size=14336, num_hidden_layers=42,
                         num_attention_heads=16, num_key_value_heads=8, head_dim=256,
                         vocab_size=256000, max_position_embeddings=8192,
                         query_pre_attn_scalar=256, attn_logit_softcapping=50.0,
                         final_logit_softcapping=30.0, sliding_window=4096),
    "gemma-3-1b": gemma3(hidden_size=1152, intermediate_size=6912, num_hidden_layers=26,
                         num_attention_heads=4, num_key_value_heads=1, head_dim=256,
                         vocab_size=262144, max_position_embeddings=32768,
                         query_pre_attn_scalar=256, sliding_window=512, sliding_window_pattern=6,
                         rope_theta=1000000.0, rope_local_base_freq=10000.0, rope_scaling=None,
                         torch_dtype="bfloat16"),
    "mistral-7b": llama(architectures=["MistralForCausalLM"], model_type="mistral",
                        hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                        num_attention_heads=32, num_key_value_heads=8, vocab_size=32000,
                        max_position_embeddings=32768, rope_theta=1000000.0, sliding_window=None,
                        torch_dtype="bfloat16"),
}
# --random folders are cut into shards of at most this many bytes, as
# save_pretrained's default max_shard_size "5GB" does (the 1B shapes stay one
# model.safetensors; gemma-7b, gemma-2-9b and mistral-7b get an index)
SHARD_BYTES = 5 * 10 ** 9


def write_case(outdir, name, cfg, dtype, shards, seed):
    """Write one folder and its golden outputs; returns the float32 check's worst ratio."""
    params = hf_ref.stored(hf_ref.init_params(cfg, seed), dtype)
    folder = os.path.join(outdir, name)
    hf_ref.write_folder(folder, cfg, params, dtype, shards)
    logits, hidden = hf_ref.forward(cfg, params, IDS, torch.float64)
    l32, h32 = hf_ref.forward(cfg, params, IDS, torch.float32)
    worst = max(model_ref.worst_violation(l32.numpy(), logits.numpy()),
                model_ref.worst_violation(h32.numpy(), hidden.numpy()))
    if worst > MARGIN:
        raise RuntimeError("%s: float32 differs from float64 by %.3f of the tolerance" % (name, worst))
    hf_ref.write_safetensors(os.path.join(folder, "golden.safetensors"), [
        ("ids", torch.tensor(IDS, dtype=torch.int32)),
        ("logits", logits.to(torch.float32)),
        ("hidden", hidden.to(torch.float32)),
    ], {"generator": "tests/reference/make_hf_golden.py"})
    if name in TOKENIZERS:  # a tokenizer case: no training goldens
        write_tokenizer_case(folder, name, cfg, params)
        return worst
    return max(worst, write_training(folder, name, cfg, params, seed))


def lora_init(cfg, seed):
    """LoRA adapters {peft name: float32 tensor} on q, k, v, o of every layer:
    A (rank, in) uniform in +-1/sqrt(in), B (out, rank) ~ Normal(0, LORA_B_STD)
    (non-zero, as after some training, so that A has a gradient too)."""
    C, H = cfg["hidden_size"], cfg["num_attention_heads"]
    KVH = cfg.get("num_key_value_heads", H)
    hd = cfg.get("head_dim") or C // H
    dims = {"q": (C, H * hd), "k": (C, KVH * hd), "v": (C, KVH * hd), "o": (H * hd, C)}
    gen = torch.Generator().manual_seed(seed)
    r, weights = LORA["rank"], {}
    for l in range(cfg["num_hidden_layers"]):
        for proj in LORA["targets"].split(","):
            n_in, n_out = dims[proj]
            a = (torch.rand(r, n_in, generator=gen) * 2.0 - 1.0) / math.sqrt(n_in)
            weights[hf_ref.lora_name(l, proj, "A")] = a
            weights[hf_ref.lora_name(l, proj, "B")] = torch.randn(n_out, r, generator=gen) * LORA_B_STD
    return weights


def train_two_steps(cfg, params0, lora0, dtype):
    """Loss and gradients of the first step, then two AdamW steps (TRAIN_HYPER) on
    the same ids and TARGETS, in dtype: of every weight (lora0 None) or of the
    adapters alone, the base frozen. Returns {"loss", "loss_step2", "grads",
    "after2"} (gradients and weights as float64 numpy arrays by name)."""
    base = {k: v.detach().clone().to(dtype).requires_grad_(lora0 is None)
            for k, v in params0.items()}
    trained = base
    lora = None
    if lora0 is not None:
        trained = {k: v.detach().clone().to(dtype).requires_grad_(True) for k, v in lora0.items()}
        lora = {"scale": LORA["alpha"] / LORA["rank"], "weights": trained}
    targets = torch.tensor(TARGETS)
    state, out = {}, {}
    for step in (1, 2):
        for w in trained.values():
            w.grad = None
        logits, _ = hf_ref.forward(cfg, base, IDS, dtype, lora)
        loss = model_ref.lm_loss(logits, targets)
        loss.backward()
        grads = {k: w.grad.detach().clone() for k, w in trained.items()}
        if step == 1:
            out["loss"] = loss.item()
            out["grads"] = {k: g.double().numpy() for k, g in grads.items()}
        else:
            out["loss_step2"] = loss.item()
        model_ref.adamw_step(trained, grads, state, TRAIN_HYPER, TRAIN_HYPER["lr"], step)
    out["after2"] = {k: w.detach().double().numpy() for k, w in trained.items()}
    return out


def write_training(folder, name, cfg, params, seed):
    """folder/train.safetensors: the golden loss, gradients and weights after
    two AdamW steps of full training ("full.*") and of LoRA training with the
    base frozen ("lora.*", adapters from "lora.init.*"), in float64 from the
    stored weights. Returns the float32 check's worst ratio."""
    lora0 = lora_init(cfg, seed + 1000)
    tensors, worst = [("targets", torch.tensor(TARGETS, dtype=torch.int32))], 0.0
    meta = {"generator": "tests/reference/make_hf_golden.py", "ignore": str(model_ref.IGNORE),
            "lr": repr(TRAIN_HYPER["lr"]), "lora_rank": str(LORA["rank"]),
            "lora_alpha": repr(LORA["alpha"]), "lora_targets": LORA["targets"]}
    for key in ("beta1", "beta2", "eps", "weight_decay", "grad_clip"):
        meta[key] = repr(TRAIN_HYPER[key])
    for kind, start in (("full", None), ("lora", lora0)):
        r64 = train_two_steps(cfg, params, start, torch.float64)
        r32 = train_two_steps(cfg, params, start, torch.float32)
        pairs = [(np.array([r32["loss"]]), np.array([r64["loss"]])),
                 (np.array([r32["loss_step2"]]), np.array([r64["loss_step2"]]))]
        pairs += [(r32[part][k], r64[part][k]) for part in ("grads", "after2") for k in r64[part]]
        w = max(model_ref.worst_violation(a, b) for a, b in pairs)
        if w > TRAIN_MARGIN:
            raise RuntimeError("%s %s training: float32 differs from float64 by %.3f of the "
                               "tolerance" % (name, kind, w))
        worst = max(worst, w)
        meta[kind + ".loss"] = repr(r64["loss"])
        meta[kind + ".loss_step2"] = repr(r64["loss_step2"])
        if start is not None:
            tensors += [("lora.init." + k, v) for k, v in start.items()]
        tensors += [("%s.grad.%s" % (kind, k), torch.from_numpy(v).to(torch.float32))
                    for k, v in r64["grads"].items()]
        tensors += [("%s.after2.%s" % (kind, k), torch.from_numpy(v).to(torch.float32))
                    for k, v in r64["after2"].items()]
    hf_ref.write_safetensors(os.path.join(folder, "train.safetensors"), tensors, meta)
    return worst


def main(argv):
    """The command line (see the module doc); 0, 1 when a case fails its check, 2 on bad usage."""
    torch.set_num_threads(1)
    if len(argv) == 4 and argv[1] == "--random":
        if argv[2] not in SHAPES:
            sys.stderr.write("make_hf_golden: unknown shape %s (%s)\n" % (argv[2], ", ".join(SHAPES)))
            return 2
        start = time.time()
        total = hf_ref.write_random_folder(argv[3], SHAPES[argv[2]], torch.bfloat16, 1, std=0.02,
                                           max_shard_bytes=SHARD_BYTES)
        print("%s: %s, %.2f GB of BF16 weights in %d shard(s), %.0f s"
              % (argv[2], argv[3], total / 1e9,
                 len(hf_ref.shard_plan(SHAPES[argv[2]], torch.bfloat16, SHARD_BYTES)),
                 time.time() - start))
        return 0
    if len(argv) < 2:
        sys.stderr.write("usage: make_hf_golden.py OUTDIR [CASE...] | --random SHAPE DIR\n")
        return 2
    outdir, wanted = argv[1], set(argv[2:])
    for name, cfg, dtype, shards, seed in cases():
        if wanted and name not in wanted:
            continue
        try:
            worst = write_case(outdir, name, cfg, dtype, shards, seed)
        except RuntimeError as e:
            sys.stderr.write("make_hf_golden: %s\n" % e)
            return 1
        print("%-13s %s, %d shard(s); float32 vs float64 worst %.3f of the tolerance"
              % (name, str(dtype).replace("torch.", ""), shards, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
