"""bench_torch.py - the seqrep training step timed in PyTorch, for `make bench`.

The same model as the C library (tests/reference/README.md): token embedding,
L x [RMSNorm, fused q/k/v projection, RoPE, causal attention, o_proj, residual,
RMSNorm, fused gate/up projection, SwiGLU, down_proj, residual], final RMSNorm,
LM head tied to the embedding; no biases. The step is the one seqrep's trainer
runs: forward, mean cross-entropy, zero_grad, backward, global-norm gradient
clipping and torch.optim.AdamW (foreach implementation, the fastest torch 1.13
offers on the CPU; `fused` exists only for CUDA there).

PyTorch gets its best footing: it is timed under the thread settings
torch.set_num_threads(T) x OPENBLAS_NUM_THREADS=B for (T, B) in (1, 1), (1, 2),
(2, 1) (each in a fresh process, because OpenBLAS reads its thread count when
it loads) and the fastest train step is reported. (2, 2) puts four busy
threads on two cores and was by far the slowest whenever we measured it
(docs/performance.md); --all-settings times it too. Debian's torch is built
with BLAS_INFO=generic, so its matrix products go through libblas.so.3, which
on this machine is OpenBLAS (libopenblas0-pthread); the JSON names the BLAS
library the process actually mapped.

Usage:
  /usr/bin/python3 tests/reference/bench_torch.py --config tiny|small|base [--reps N]
                                                  [--all-settings]
prints one JSON line: {"config", "train_tok_s", "fwd_tok_s", "torch_threads",
"openblas_threads", "settings": [every combination tried], "torch", "blas"}.
With --threads and --openblas-threads it times that one setting only (the
sweep runs itself this way).
Only torch and the standard library are used.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

# The benchmark configurations; tests/bench.c uses the same table.
CONFIGS = {
    "tiny": dict(d_model=64, n_layers=4, n_heads=2, d_ff=176),
    "small": dict(d_model=128, n_layers=6, n_heads=4, d_ff=352),
    "base": dict(d_model=256, n_layers=8, n_heads=4, d_ff=688),
}
VOCAB = 4096
BATCH = 8
SEQ_LEN = 128
ROPE_THETA = 10000.0
NORM_EPS = 1e-5


def build_model(torch, cfg):
    """The seqrep decoder as a torch.nn.Module (defined here so that torch is
    imported only after OPENBLAS_NUM_THREADS is fixed)."""
    nn = torch.nn
    F = torch.nn.functional
    C, H, L, FF = cfg["d_model"], cfg["n_heads"], cfg["n_layers"], cfg["d_ff"]
    hd = C // H

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(C))

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + NORM_EPS) * self.weight

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = RMSNorm()
            self.qkv = nn.Linear(C, 3 * C, bias=False)
            self.o = nn.Linear(C, C, bias=False)
            self.ln2 = RMSNorm()
            self.gate_up = nn.Linear(C, 2 * FF, bias=False)
            self.down = nn.Linear(FF, C, bias=False)

        def forward(self, x, cos, sin, mask):
            B, T, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, H, hd).permute(2, 0, 3, 1, 4)
            q = q * cos + rotate_half(q) * sin                   # (B, H, T, hd)
            k = k * cos + rotate_half(k) * sin
            scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(hd))
            att = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
            y = (att @ v).transpose(1, 2).reshape(B, T, C)
            x = x + self.o(y)
            gate, up = self.gate_up(self.ln2(x)).chunk(2, dim=-1)
            return x + self.down(F.silu(gate) * up)

    def rotate_half(x):
        return torch.cat((-x[..., hd // 2:], x[..., :hd // 2]), dim=-1)

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(VOCAB, C)
            self.blocks = nn.ModuleList(Block() for _ in range(L))
            self.lnf = RMSNorm()
            inv_freq = 1.0 / (ROPE_THETA ** (torch.arange(0, hd, 2).float() / hd))
            angle = torch.arange(SEQ_LEN).float().unsqueeze(1) * inv_freq   # (T, hd/2)
            angle = torch.cat((angle, angle), dim=-1)
            self.register_buffer("cos", angle.cos())
            self.register_buffer("sin", angle.sin())
            self.register_buffer("mask", torch.ones(SEQ_LEN, SEQ_LEN, dtype=torch.bool).triu(1))

        def forward(self, ids, targets):
            T = ids.shape[1]
            x = self.wte(ids)
            cos, sin, mask = self.cos[:T], self.sin[:T], self.mask[:T, :T]
            for block in self.blocks:
                x = block(x, cos, sin, mask)
            logits = self.lnf(x) @ self.wte.weight.t()        # tied LM head
            return F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))

    model = Decoder()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.02)
    return model


def median_seconds(fn, warmup, reps):
    """Median wall time of fn() over reps runs after warmup untimed runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_one_setting(config, torch_threads, reps):
    """Forward and train-step tokens/s of one config with the current process's
    OpenBLAS thread count and torch_threads intra-op threads."""
    import torch
    torch.set_num_threads(torch_threads)
    torch.manual_seed(0)
    model = build_model(torch, CONFIGS[config])
    ids = torch.randint(0, VOCAB, (BATCH, SEQ_LEN))
    targets = torch.randint(0, VOCAB, (BATCH, SEQ_LEN))
    try:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), eps=1e-8,
                                weight_decay=0.1, foreach=True)
    except TypeError:  # torch without the foreach argument
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), eps=1e-8,
                                weight_decay=0.1)

    def forward_only():
        with torch.no_grad():
            model(ids, targets)

    def train_step():
        loss = model(ids, targets)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    tokens = BATCH * SEQ_LEN
    fwd = median_seconds(forward_only, 3, reps)
    train = median_seconds(train_step, 3, reps)
    return {"fwd_tok_s": tokens / fwd, "train_tok_s": tokens / train}


def blas_library():
    """The BLAS shared object this process has mapped (after torch ran a matmul)."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "blas" in line:
                    return line.split()[-1]
    except OSError:
        pass
    return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", choices=sorted(CONFIGS), required=True)
    ap.add_argument("--reps", type=int, default=7, help="timed repetitions (median)")
    ap.add_argument("--threads", type=int, help="time only this torch thread count")
    ap.add_argument("--openblas-threads", type=int,
                    help="the OPENBLAS_NUM_THREADS of this process (set by the sweep)")
    ap.add_argument("--all-settings", action="store_true",
                    help="also time torch threads 2 with OpenBLAS threads 2")
    args = ap.parse_args()

    if args.threads is not None:
        result = time_one_setting(args.config, args.threads, args.reps)
        import torch
        result.update(torch_threads=args.threads, openblas_threads=args.openblas_threads,
                      torch=torch.__version__, blas=blas_library())
        print(json.dumps(result))
        return 0

    combos = [(1, 1), (1, 2), (2, 1)] + ([(2, 2)] if args.all_settings else [])
    settings = []
    for torch_threads, blas_threads in combos:
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(blas_threads))
        env.pop("OMP_NUM_THREADS", None)
        cmd = [sys.executable, os.path.abspath(__file__), "--config", args.config,
               "--reps", str(args.reps), "--threads", str(torch_threads),
               "--openblas-threads", str(blas_threads)]
        out = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE,
                             universal_newlines=True).stdout
        settings.append(json.loads(out.strip().splitlines()[-1]))
    best = max(settings, key=lambda s: s["train_tok_s"])
    result = dict(config=args.config, train_tok_s=best["train_tok_s"],
                  fwd_tok_s=max(s["fwd_tok_s"] for s in settings),
                  torch_threads=best["torch_threads"],
                  openblas_threads=best["openblas_threads"], torch=best["torch"],
                  blas=best["blas"], settings=settings)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
