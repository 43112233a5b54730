"""make_hf_golden.py - tiny random Hugging Face model folders and their golden
outputs, from the reference of hf_ref.py.

Usage:
  make_hf_golden.py OUTDIR [CASE...]     the golden cases into OUTDIR/<case>/
  make_hf_golden.py --random SHAPE DIR   one random folder of a real model's
                                         shape (smollm2-135m, qwen3-0.6b), BF16,
                                         no golden outputs (for measuring)

Each golden folder holds config.json (real field names), the weights in the
real tensor names (model.safetensors, or model.safetensors.index.json plus
shards), and golden.safetensors: "ids" (I32, (T)), "logits" (F32, (T, V)) and
"hidden" (F32, (L+1, T, C): the residual stream after the embedding and after
each layer), computed in float64 from the weights as stored (BF16 and F16
weights rounded first). tests/test_hf_model.c compares the C loader and model
with them under the golden tolerance of model_ref.worst_violation. A case is
kept only if float32 agrees with float64 to MARGIN of that tolerance.

The case llama_tokenizer also holds a tokenizer (tokenizer.json and
tokenizer_config.json of tests/golden/tokenizers/tiny_bytelevel, 278 ids, in
a model of vocab_size 288 whose last rows have no token, as real models pad
their embedding) and greedy.txt: what `seqrep generate DIR --prompt
"hello world" --greedy --max-tokens 8 --lines 1` must print, the greedy
continuation computed here in float64 (ids without a token never taken,
stopping at the BOS or EOS), decoded by byte-level BPE. e2e_hf_model.sh runs
every command on it.
"""
import json
import shutil
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_ref  # noqa: E402
import model_ref  # noqa: E402

IDS = [1, 17, 5, 42, 99, 3, 64, 7, 23, 88, 11, 2]
MARGIN = 0.1


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
    ]


TOKENIZER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "tokenizers",
                         "tiny_bytelevel")
PROMPT_IDS = [274, 259, 264]  # <|start|> hello Ġworld: "hello world" with the template's BOS
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


def write_tokenizer_case(folder, cfg, params):
    """Copy the tokenizer into folder and write greedy.txt (see the module doc)."""
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(TOKENIZER, name), os.path.join(folder, name))
    tok = json.load(open(os.path.join(TOKENIZER, "tokenizer.json")))
    text = {i: t for t, i in tok["model"]["vocab"].items()}
    special = {a["id"] for a in tok["added_tokens"] if a["special"]}
    for a in tok["added_tokens"]:
        text[a["id"]] = a["content"]
    bos, eos = 274, 275
    ids = list(PROMPT_IDS)
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
        f.write(byte_level_text([text[i] for i in kept]) + "\n")


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
}


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
    if name == "llama_tokenizer":
        write_tokenizer_case(folder, cfg, params)
    return worst


def main(argv):
    torch.set_num_threads(1)
    if len(argv) == 4 and argv[1] == "--random":
        if argv[2] not in SHAPES:
            sys.stderr.write("make_hf_golden: unknown shape %s (%s)\n" % (argv[2], ", ".join(SHAPES)))
            return 2
        cfg = SHAPES[argv[2]]
        params = hf_ref.init_params(cfg, 1, std=0.02)
        hf_ref.write_folder(argv[3], cfg, params, torch.bfloat16)
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
