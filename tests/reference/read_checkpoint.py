"""read_checkpoint.py - show that Python can read and use a seqrep checkpoint.

Usage: /usr/bin/python3 tests/reference/read_checkpoint.py CHECKPOINT
                        [--ids 6,7,8,9] [--expect IO.safetensors]

Reads CHECKPOINT (safetensors with Hugging Face Llama tensor names and the
seqrep.config / seqrep.vocab / seqrep.manifest metadata), prints the config,
the vocabulary size, the manifest and every tensor's name and shape, checks
that every parameter the config calls for is present, has the right shape
and finite values, then runs model_ref.forward on a few token ids (causal,
RoPE at positions 0..T-1) and prints the most likely next word at each one.

--ids    comma-separated token ids for that forward (default: up to 8 ids
         counting up from 6, the first ordinary word).
--expect a file holding I32 "ids" (B, T) and F32 "logits" (B, T, V), and
         optionally I32 "lengths", "positions", F32 "real_pos" (L, B, T, H) and
         metadata "mask_plan", "pos_plan" (a golden .io file has all of them):
         the forward is run on those inputs and its logits must match within
         the golden tolerance (model_ref.worst_violation <= 1).

Exit status: 0 all good, 1 the checkpoint is malformed or a check fails,
2 bad command line.
"""

import argparse
import json
import sys
import os

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_ref  # noqa: E402


def describe(path, cfg, params, vocab, meta, other):
    """Print the config, vocabulary, manifest and tensor shapes."""
    print("checkpoint %s" % path)
    print("config: %s" % json.dumps(cfg))
    if vocab is None:
        print("vocab: (none stored)")
    else:
        print("vocab: %d words, first %s" % (len(vocab), vocab[:8]))
    if "seqrep.manifest" in meta:
        print("manifest: %s" % meta["seqrep.manifest"])
    for name, _ in model_ref.param_shapes(cfg):
        print("  %-48s %s" % (name, list(params[name].shape)))
    for name in sorted(other):
        print("  %-48s %s (not a parameter)" % (name, list(other[name].shape)))


def demo_forward(cfg, params, vocab, ids_list):
    """Causal RoPE forward of one row of ids; prints the argmax words.
    Returns False if the logits are not finite."""
    T = len(ids_list)
    ids = torch.tensor([ids_list], dtype=torch.int32)
    lengths = torch.tensor([T], dtype=torch.int32)
    positions = torch.arange(T, dtype=torch.int32).view(1, T)
    L = cfg["n_layers"]
    with torch.no_grad():
        logits = model_ref.forward(params, cfg, ids, lengths, positions, ["causal"] * L,
                                   ["rope"] * L)
    if not torch.isfinite(logits).all():
        print("FAIL: forward produced non-finite logits")
        return False
    best = logits[0].argmax(dim=-1).tolist()
    word = (lambda i: vocab[i]) if vocab else str
    print("forward on ids %s: logits %s" % (ids_list, list(logits.shape)))
    print("  next-word argmax: %s" % " ".join(word(i) for i in best))
    return True


def check_expected(cfg, params, path):
    """Run the forward on the inputs stored in path and compare its logits."""
    tensors, meta = model_ref.read_safetensors(path)
    for need in ("ids", "logits"):
        if need not in tensors:
            print("FAIL: %s has no tensor %r" % (path, need))
            return False
    ids = torch.from_numpy(tensors["ids"].astype(np.int32))
    B, T = ids.shape
    L, H = cfg["n_layers"], cfg["n_heads"]
    lengths = torch.from_numpy(tensors["lengths"].astype(np.int32)) if "lengths" in tensors \
        else torch.full((B,), T, dtype=torch.int32)
    positions = torch.from_numpy(tensors["positions"].astype(np.int32)) \
        if "positions" in tensors else torch.arange(T, dtype=torch.int32).expand(B, T)
    mask_plan = meta.get("mask_plan", ",".join(["causal"] * L)).split(",")
    pos_plan = meta.get("pos_plan", ",".join(["rope"] * L)).split(",")
    if len(mask_plan) != L or len(pos_plan) != L:
        print("FAIL: %s: mask/position plans do not have %d layers" % (path, L))
        return False
    real_pos = torch.from_numpy(tensors["real_pos"].astype(np.float32)) \
        if "real_pos" in tensors else torch.zeros(L, B, T, H)
    with torch.no_grad():
        logits = model_ref.forward(params, cfg, ids, lengths, positions, mask_plan, pos_plan,
                                   real_pos)
    want = tensors["logits"]
    if tuple(want.shape) != tuple(logits.shape):
        print("FAIL: %s: logits shape %s, forward gives %s"
              % (path, list(want.shape), list(logits.shape)))
        return False
    worst = model_ref.worst_violation(logits.numpy(), want)
    ok = worst <= 1.0
    print("%s: logits vs %s (mask %s, positions %s): worst %.3f of the tolerance"
          % ("ok" if ok else "FAIL", path, ",".join(mask_plan), ",".join(pos_plan), worst))
    return ok


def main(argv):
    parser = argparse.ArgumentParser(description="read a seqrep checkpoint with PyTorch")
    parser.add_argument("checkpoint")
    parser.add_argument("--ids", help="comma-separated token ids for a demo forward")
    parser.add_argument("--expect", help="safetensors file with ids and expected logits")
    args = parser.parse_args(argv[1:])  # exits 2 on a bad command line

    try:
        cfg, params, vocab, meta, other = model_ref.load_checkpoint(args.checkpoint,
                                                                    strict=False)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("FAIL: %s" % e)
        return 1
    describe(args.checkpoint, cfg, params, vocab, meta, other)

    ok = True
    if meta.get("format") != "pt":
        print("FAIL: metadata format is %r, expected 'pt'" % meta.get("format"))
        ok = False
    if cfg["d_model"] % cfg["n_heads"] or (cfg["d_model"] // cfg["n_heads"]) % 2:
        print("FAIL: d_model / n_heads must be an even integer")
        return 1
    for name, t in params.items():
        if not torch.isfinite(t).all():
            print("FAIL: tensor %s has non-finite values" % name)
            ok = False

    V = cfg["vocab_size"]
    if args.ids:
        try:
            ids = [int(x) for x in args.ids.split(",")]
        except ValueError:
            sys.stderr.write("read_checkpoint: --ids must be comma-separated integers\n")
            return 2
    else:
        ids = [(6 + i) % V for i in range(min(8, cfg["max_seq_len"]))]
    if not ids or any(i < 0 or i >= V for i in ids) or len(ids) > cfg["max_seq_len"]:
        sys.stderr.write("read_checkpoint: --ids must be 1..max_seq_len ids in [0, %d)\n" % V)
        return 2
    ok = demo_forward(cfg, params, vocab, ids) and ok
    if args.expect:
        try:
            ok = check_expected(cfg, params, args.expect) and ok
        except (OSError, ValueError, KeyError) as e:
            print("FAIL: %s" % e)
            ok = False
    print("read_checkpoint: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
