"""bench_torch_hf.py - the forward pass of a Hugging Face model shape timed in
PyTorch, for `make bench` (tests/bench/bench_hf.c has the same shapes).

The model is hf_ref.forward (the architectures written from their published
formulas, as the golden tests use them) in float32 under torch.no_grad, with
random weights (hf_ref.init_params): speed does not depend on what the
weights know. One sequence of T tokens, logits included. PyTorch gets its
best footing as in bench_torch.py: torch.set_num_threads(T) x
OPENBLAS_NUM_THREADS=B for (T, B) in (1, 1), (1, 2), (2, 1), each in a fresh
process, the fastest reported.

Usage:
  /usr/bin/python3 tests/reference/bench_torch_hf.py --shape smollm2-135m|qwen3-0.6b --tokens T [--reps N]
prints one JSON line: {"shape", "tokens", "tok_s", "peak_rss_mib", "torch_threads",
"openblas_threads", "settings"}.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

# The published config.json fields of the two models (HuggingFaceTB/SmolLM2-135M, Qwen/Qwen3-0.6B).
SHAPES = {
    "smollm2-135m": dict(architectures=["LlamaForCausalLM"], hidden_size=576, intermediate_size=1536,
                         num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
                         vocab_size=49152, tie_word_embeddings=True, rope_theta=100000.0,
                         rms_norm_eps=1e-5),
    "qwen3-0.6b": dict(architectures=["Qwen3ForCausalLM"], hidden_size=1024, intermediate_size=3072,
                       num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8,
                       head_dim=128, vocab_size=151936, tie_word_embeddings=True,
                       rope_theta=1000000.0, rms_norm_eps=1e-6),
}


def time_one_setting(shape, tokens, torch_threads, reps):
    """tokens/s of the forward pass with this process's thread settings."""
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import hf_ref
    torch.set_num_threads(torch_threads)
    cfg = SHAPES[shape]
    params = hf_ref.init_params(cfg, seed=1, std=0.02)
    ids = torch.randint(0, cfg["vocab_size"], (tokens,)).tolist()
    times = []
    with torch.no_grad():
        for i in range(1 + reps):
            start = time.perf_counter()
            hf_ref.forward(cfg, params, ids, dtype=torch.float32)
            if i >= 1:
                times.append(time.perf_counter() - start)
    times.sort()
    median = times[len(times) // 2]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return {"tok_s": tokens / median, "peak_rss_mib": rss}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", choices=sorted(SHAPES), required=True)
    ap.add_argument("--tokens", type=int, required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, help="time only this torch thread count")
    ap.add_argument("--openblas-threads", type=int, help="set by the sweep")
    args = ap.parse_args()
    if args.threads is not None:
        result = time_one_setting(args.shape, args.tokens, args.threads, args.reps)
        result.update(torch_threads=args.threads, openblas_threads=args.openblas_threads)
        print(json.dumps(result))
        return 0
    settings = []
    for torch_threads, blas_threads in [(1, 1), (1, 2), (2, 1)]:
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(blas_threads))
        env.pop("OMP_NUM_THREADS", None)
        cmd = [sys.executable, os.path.abspath(__file__), "--shape", args.shape, "--tokens",
               str(args.tokens), "--reps", str(args.reps), "--threads", str(torch_threads),
               "--openblas-threads", str(blas_threads)]
        out = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE,
                             universal_newlines=True).stdout
        settings.append(json.loads(out.strip().splitlines()[-1]))
    best = max(settings, key=lambda s: s["tok_s"])
    print(json.dumps(dict(shape=args.shape, tokens=args.tokens, tok_s=best["tok_s"],
                          peak_rss_mib=best["peak_rss_mib"], torch_threads=best["torch_threads"],
                          openblas_threads=best["openblas_threads"], settings=settings)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
