"""make_golden.py - write the golden files that tests/unit/model/test_golden.c compares against.

Usage: /usr/bin/python3 tests/reference/make_golden.py OUTDIR [CASE...]   (make golden)

With CASE names only those cases are written (the others stay as they are).
The lora case freezes the base model and trains LoRA adapters (rank 4,
alpha 8, on q, k, v, o; no dropout, so it is deterministic): its io file
holds the adapters' initial values, gradients and values after two AdamW
steps under their PEFT names, and the base weights must not move.

For each case (causal, bidirectional, middle, nope, realpos, repo, lora) it writes
  OUTDIR/<case>.model.safetensors  a seqrep checkpoint of the initial weights
  OUTDIR/<case>.io.safetensors     inputs, logits, loss, every gradient, and
                                   the weights after two AdamW steps
All numbers are computed in float32 with model_ref.py. As a check that the
golden values are well conditioned (so a float32 C implementation can match
them to 1e-4), every case is also run in float64, and a weight seed is kept
only if the float32 results agree with float64 within a tenth of the C
test's tolerance. Exit status 1 if no seed qualifies or if grad_clip does not
both clip some steps and leave others unclipped.
"""

import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_ref  # noqa: E402

GENERATOR = "tests/reference/make_golden.py"

CONFIG = {
    "vocab_size": 32, "d_model": 16, "n_layers": 4, "n_heads": 2, "d_ff": 24,
    "max_seq_len": 16, "rope_theta": 10000.0, "norm_eps": 1e-5, "tied": 1,
}
B, T = 2, 7
LENGTHS = [7, 5]

HYPER = {"lr": 1e-2, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.1,
         "grad_clip": 5.0}

# The C test's tolerance is model_ref.GOLDEN_REL (see model_ref.worst_violation):
# |a - b| <= 1e-4 * (max(|a|, |b|) + rms of the golden tensor). The rms term is
# the absolute floor: an element near zero in a tensor of scale rms cannot be
# computed in float32 more exactly than that scale allows.
# A case is accepted only if its float32 results agree with float64 to this
# fraction of the tolerance (so two float32 implementations agree within it).
MARGIN = 0.1

# RePo cases: their first RePo layer, and the factor their z projections are
# scaled by after the common initialisation, so that z spans several units
# (about +-3) and the rotation by z is far from the identity.
REPO_FROM = {"repo": 1}

# The LoRA case: adapters on every attention projection of every layer. B is
# drawn non-zero (as after some training), so that A has a gradient too.
LORA = {"rank": 4, "alpha": 8.0, "targets": "q,k,v,o"}
LORA_B_STD = 0.3
REPO_Z_SCALE = 10.0


def middle_plan(n_layers):
    """The paper's middle unmasking: layers lb..ub bidirectional, where
    cut = (N/3)/2*2, lb = N/2-1-cut/2, ub = N/2+cut/2 (integer division)."""
    cut = (n_layers // 3) // 2 * 2
    lb = n_layers // 2 - 1 - cut // 2
    ub = n_layers // 2 + cut // 2
    return ["bidirectional" if lb <= l <= ub else "causal" for l in range(n_layers)]


def cases():
    """(name, tied, weight seed, mask plan, position plan) of every golden case."""
    L = CONFIG["n_layers"]
    return [
        ("causal", 1, 11, ["causal"] * L, ["rope"] * L),
        ("bidirectional", 1, 12, ["bidirectional"] * L, ["rope"] * L),
        ("middle", 1, 13, middle_plan(L), ["rope"] * L),
        ("nope", 1, 14, ["causal"] * L, ["none"] * L),
        ("realpos", 0, 15, ["causal"] * L, ["rope"] + ["real"] * (L - 1)),
        ("repo", 1, 16, ["causal"] * L, ["rope"] + ["repo"] * (L - 1)),
        ("lora", 1, 17, ["causal"] * L, ["rope"] * L),
    ]


def lora_init(cfg, seed):
    """LoRA weights {peft name: tensor}: A uniform in +-1/sqrt(C) (PEFT's
    Kaiming-uniform), B ~ Normal(0, LORA_B_STD)."""
    gen = torch.Generator().manual_seed(seed)
    C, r = cfg["d_model"], LORA["rank"]
    weights = {}
    for l in range(cfg["n_layers"]):
        for proj in LORA["targets"].split(","):
            a = (torch.rand(r, C, generator=gen) * 2.0 - 1.0) / math.sqrt(C)
            weights[model_ref.lora_name(l, proj, "A")] = a
            weights[model_ref.lora_name(l, proj, "B")] = torch.randn(C, r, generator=gen) * LORA_B_STD
    return weights


def make_inputs(pos_plan, seed):
    """ids, lengths, positions, targets (int32) and real_pos (L, B, T, H) float32.
    Row 0 holds 7 tokens at positions 0..6, row 1 holds 5 tokens (then 2 pads)
    at positions 3..9. Targets are random words, -1 on padding and at two
    valid positions. real_pos is random in [-4, 12) (non-integer) on 'real'
    layers and zero elsewhere."""
    V, L, H = CONFIG["vocab_size"], CONFIG["n_layers"], CONFIG["n_heads"]
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(6, V, (B, T), generator=gen, dtype=torch.int32)
    targets = torch.randint(0, V, (B, T), generator=gen, dtype=torch.int32)
    lengths = torch.tensor(LENGTHS, dtype=torch.int32)
    for b in range(B):
        ids[b, LENGTHS[b]:] = 0          # <pad>
        targets[b, LENGTHS[b]:] = model_ref.IGNORE
    targets[0, 2] = model_ref.IGNORE
    targets[1, 0] = model_ref.IGNORE
    positions = torch.stack([torch.arange(0, T), torch.arange(3, 3 + T)]).to(torch.int32)
    real_pos = torch.zeros(L, B, T, H)
    noise = torch.rand(L, B, T, H, generator=gen) * 16.0 - 4.0
    for l in range(L):
        if pos_plan[l] == "real":
            real_pos[l] = noise[l]
    return ids, lengths, positions, targets, real_pos


def run_lora_case(cfg, params0, lora0, inputs, mask_plan, pos_plan, dtype):
    """The lora case: the base frozen, two AdamW steps on the adapters only.
    Returns logits, loss, adapter gradients (first step) and adapters after
    the second step, with the same keys as run_case."""
    ids, lengths, positions, targets, real_pos = inputs
    params = {k: v.detach().clone().to(dtype) for k, v in params0.items()}
    weights = {k: v.detach().clone().to(dtype).requires_grad_(True) for k, v in lora0.items()}
    lora = {"scale": LORA["alpha"] / LORA["rank"], "weights": weights}
    state, out = {}, {}
    for step in (1, 2):
        for w in weights.values():
            w.grad = None
        logits = model_ref.forward(params, cfg, ids, lengths, positions, mask_plan, pos_plan,
                                   real_pos.to(dtype), None, lora)
        loss = model_ref.lm_loss(logits, targets)
        loss.backward()
        grads = {k: w.grad.detach().clone() for k, w in weights.items()}
        if step == 1:
            out["logits"] = logits.detach().numpy()
            out["loss"] = np.array([loss.item()])
            out["grads"] = {k: g.numpy() for k, g in grads.items()}
        else:
            out["loss_step2"] = loss.item()
        out["grad_norm_step%d" % step] = model_ref.adamw_step(weights, grads, state, HYPER,
                                                              HYPER["lr"], step)
    out["after2"] = {k: w.detach().numpy() for k, w in weights.items()}
    out["grad.real_pos"] = np.zeros(tuple(real_pos.shape))  # no real-valued positions here
    out["repo_z"] = np.zeros(1)
    return out


def run_case(cfg, params0, inputs, mask_plan, pos_plan, dtype):
    """Forward, loss, backward, then two AdamW steps on the same batch, all in
    dtype. Returns a dict of numpy results (gradients from the first step;
    "repo_z" (L, B, T, H), the RePo positions, zero on other layers)."""
    ids, lengths, positions, targets, real_pos0 = inputs
    params = {k: v.detach().clone().to(dtype).requires_grad_(True) for k, v in params0.items()}
    real_pos = real_pos0.clone().to(dtype).requires_grad_(True)
    state, out = {}, {}
    for step in (1, 2):
        for p in params.values():
            p.grad = None
        real_pos.grad = None
        zs = []
        logits = model_ref.forward(params, cfg, ids, lengths, positions, mask_plan, pos_plan,
                                   real_pos, zs)
        loss = model_ref.lm_loss(logits, targets)
        loss.backward()
        grads = {k: p.grad.detach().clone() for k, p in params.items()}
        if step == 1:
            out["logits"] = logits.detach().numpy()
            out["loss"] = np.array([loss.item()])
            out["grads"] = {k: g.numpy() for k, g in grads.items()}
            dreal = real_pos.grad if real_pos.grad is not None else torch.zeros_like(real_pos)
            out["grad.real_pos"] = dreal.detach().numpy()
            out["repo_z"] = np.stack([np.zeros(real_pos.shape[1:]) if z is None
                                      else z.detach().numpy() for z in zs])
        else:
            out["loss_step2"] = loss.item()
        out["grad_norm_step%d" % step] = model_ref.adamw_step(params, grads, state, HYPER,
                                                              HYPER["lr"], step)
    out["after2"] = {k: p.detach().numpy() for k, p in params.items()}
    return out


def conditioning_check(r32, r64):
    """Worst float32-vs-float64 violation over every compared tensor of a case."""
    pairs = [("logits", r32["logits"], r64["logits"]), ("loss", r32["loss"], r64["loss"]),
             ("grad.real_pos", r32["grad.real_pos"], r64["grad.real_pos"]),
             ("repo_z", r32["repo_z"], r64["repo_z"])]
    pairs += [("grad." + k, r32["grads"][k], r64["grads"][k]) for k in r32["grads"]]
    pairs += [("after2." + k, r32["after2"][k], r64["after2"][k]) for k in r32["after2"]]
    return max(((model_ref.worst_violation(b, a), what) for what, a, b in pairs))


def write_case(outdir, name, cfg, params, inputs, mask_plan, pos_plan, res):
    """Write <name>.model.safetensors and <name>.io.safetensors."""
    manifest = {"generator": GENERATOR, "case": name, "torch": torch.__version__}
    model_ref.save_checkpoint(os.path.join(outdir, name + ".model.safetensors"), cfg, params,
                              model_ref.default_vocab(cfg["vocab_size"]), manifest)
    ids, lengths, positions, targets, real_pos = inputs
    f32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731
    i32 = lambda a: np.ascontiguousarray(np.asarray(a), dtype=np.int32)  # noqa: E731
    tensors = [("ids", i32(ids)), ("lengths", i32(lengths)), ("positions", i32(positions)),
               ("targets", i32(targets)), ("real_pos", f32(real_pos)),
               ("logits", f32(res["logits"])), ("loss", f32(res["loss"]))]
    names = [n for n, _ in model_ref.param_shapes(cfg)]
    if name == "lora":  # the adapters: initial values, gradients, after two steps
        names = sorted(res["grads"])
        tensors += [("init." + n, f32(res["init"][n].detach().numpy())) for n in names]
    tensors += [("grad." + n, f32(res["grads"][n])) for n in names]
    tensors.append(("grad.real_pos", f32(res["grad.real_pos"])))
    if "repo" in pos_plan:  # the positions the RePo layers computed
        tensors.append(("repo_z", f32(res["repo_z"])))
    tensors += [("after2." + n, f32(res["after2"][n])) for n in names]
    meta = {
        "generator": GENERATOR, "case": name,
        "mask_plan": ",".join(mask_plan), "pos_plan": ",".join(pos_plan),
        "ignore": str(model_ref.IGNORE),
        "loss_step2": "%.9g" % res["loss_step2"],
        "grad_norm_step1": "%.9g" % res["grad_norm_step1"],
        "grad_norm_step2": "%.9g" % res["grad_norm_step2"],
    }
    for k, v in HYPER.items():
        meta[k] = repr(v)
    if name == "lora":
        meta.update({"lora_rank": str(LORA["rank"]), "lora_alpha": repr(LORA["alpha"]),
                     "lora_targets": LORA["targets"]})
    model_ref.write_safetensors(os.path.join(outdir, name + ".io.safetensors"), tensors, meta)


def build_case(index, name, tied, seed, mask_plan, pos_plan):
    """Run a case in float32 and float64, trying weight seeds seed, seed+1000,
    ... until the float32 results are within MARGIN of the tolerance of the
    float64 ones (a near-zero gradient element can make Adam's normalised step
    depend on rounding). Returns (cfg, params, inputs, float32 results, worst)."""
    cfg = dict(CONFIG, tied=tied)
    if name in REPO_FROM:
        cfg["repo_from"] = REPO_FROM[name]
    inputs = make_inputs(pos_plan, 100 + index)
    for attempt in range(20):
        params = model_ref.init_params(cfg, seed + 1000 * attempt)
        with torch.no_grad():
            for pname, p in params.items():
                if pname.endswith("repo.z_proj.weight"):
                    p.mul_(REPO_Z_SCALE)
        if name == "lora":
            lora0 = lora_init(cfg, seed + 1000 * attempt + 1)
            res = run_lora_case(cfg, params, lora0, inputs, mask_plan, pos_plan, torch.float32)
            res64 = run_lora_case(cfg, params, lora0, inputs, mask_plan, pos_plan, torch.float64)
            res["init"] = lora0
        else:
            res = run_case(cfg, params, inputs, mask_plan, pos_plan, torch.float32)
            res64 = run_case(cfg, params, inputs, mask_plan, pos_plan, torch.float64)
        worst = conditioning_check(res, res64)
        if worst[0] <= MARGIN:
            return cfg, params, inputs, res, worst
        print("  %s: weight seed %d rejected (float32 vs float64: %.3f of the tolerance in %s)"
              % (name, seed + 1000 * attempt, worst[0], worst[1]))
    raise RuntimeError("%s: no well-conditioned weight seed found" % name)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: make_golden.py OUTDIR [CASE...]\n")
        return 2
    outdir, wanted = argv[1], set(argv[2:])
    unknown = wanted - {c[0] for c in cases()}
    if unknown:
        sys.stderr.write("make_golden: unknown case %s\n" % ", ".join(sorted(unknown)))
        return 2
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    clipped = unclipped = 0
    for index, (name, tied, seed, mask_plan, pos_plan) in enumerate(cases()):
        if wanted and name not in wanted:
            continue
        try:
            cfg, params, inputs, res, worst = build_case(index, name, tied, seed, mask_plan,
                                                         pos_plan)
        except RuntimeError as e:
            sys.stderr.write("make_golden: %s\n" % e)
            return 1
        norms = (res["grad_norm_step1"], res["grad_norm_step2"])
        clipped += sum(n > HYPER["grad_clip"] for n in norms)
        unclipped += sum(n <= HYPER["grad_clip"] for n in norms)
        print("%-13s loss %.6f -> %.6f, grad norm %.4f, %.4f (clip %g); "
              "float32 vs float64 worst %.3f of the tolerance (%s)"
              % (name, res["loss"][0], res["loss_step2"], norms[0], norms[1],
                 HYPER["grad_clip"], worst[0], worst[1]))
        write_case(outdir, name, cfg, params, inputs, mask_plan, pos_plan, res)
    if not wanted and (clipped == 0 or unclipped == 0):
        sys.stderr.write("make_golden: grad_clip %g should clip some steps and not others "
                         "(clipped %d, unclipped %d)\n" % (HYPER["grad_clip"], clipped,
                                                          unclipped))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
