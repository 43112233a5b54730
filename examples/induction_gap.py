#!/usr/bin/env python3
"""induction_gap.py — does an LM's induction score predict its SR gap?
(issue 41, part 3b) Across LMs, the gap of fine-tuned SR r = 1 (running
positions, full depth) to unmask-full on NLU++ test under the paper recipe,
against the LM's best induction score on the dev split (`seqrep heads --r 1`,
layers 1 and up, as examples/ablation.sh picks it).

  python3 examples/induction_gap.py --out CSV [--md MD] [--samples N] [--seed S]
          NAME=GRID.csv,HEADS.csv ...

GRID.csv is an LM's sweep CSV (its nlupp-paper grid); HEADS.csv its heads on
dev. Per LM: the seeds both configurations have, the mean test F1 of each, the
gap sr r=1 - unmask-full, and the 2.5th to 97.5th percentile of the gap over
seeds drawn with replacement. Across the LMs: Pearson's r and the least-squares
slope (gap points per 0.1 of induction score), with the percentile interval of
a two-level bootstrap (the LMs drawn with replacement, then each drawn LM's
seeds; a draw whose induction scores are all equal is drawn again). Its only
noise is the fine-tuning seeds' and the choice of LMs: the test sentences are
not resampled (seqrep compare does that for one gap between two LMs: compare
--against --gap). With few LMs the interval is wide; it says so.

Writes CSV (one row per LM, then the rows pearson_r and slope_per_0.1, whose
gap, lo and hi columns hold the estimate and its interval), its manifest
beside it (the command, the inputs) and MD, through temporary files.
"""
import csv
import json
import math
import os
import random
import sys


def fail(message):
    """Print one line naming the problem and exit with status 2."""
    print(f"induction_gap: {message}", file=sys.stderr)
    sys.exit(2)


def read_rows(path):
    """The rows of a CSV file as dicts."""
    try:
        with open(path, newline="") as handle:
            return list(csv.DictReader(handle))
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def seed_f1(grid, method, r, positions):
    """{seed: test F1} of the grid's paper-recipe NLU++ runs of one
    configuration at full depth (the largest exit of the grid)."""
    rows = read_rows(grid)
    if not rows or "test_f1" not in rows[0]:
        fail(f"{grid}: line 1: not a seqrep sweep CSV (no test_f1 column)")
    chosen = [x for x in rows if x["dataset"] == "nlupp" and x["recipe"] == "paper"]
    if not chosen:
        fail(f"{grid}: no NLU++ run under the paper recipe")
    full = max(int(x["exit"]) for x in chosen)
    return {int(x["seed"]): float(x["test_f1"]) for x in chosen
            if x["method"] == method and x["r"] == r and x["positions"] == positions and int(x["exit"]) == full}


def best_induction(heads):
    """The largest induction score of a heads CSV in layers 1 and up."""
    rows = read_rows(heads)
    try:
        return max(float(x["induction"]) for x in rows if int(x["layer"]) >= 1)
    except (KeyError, ValueError):
        fail(f"{heads}: not a CSV of seqrep heads with heads in layers 1 and up")


def pearson_slope(xs, ys):
    """Pearson's r and the least-squares slope of ys on xs (None, None when xs are all equal)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    if sxx <= 0:
        return None, None
    r = sxy / math.sqrt(sxx * syy) if syy > 0 else 0.0
    return r, sxy / sxx


def percentile(values, q):
    """The q-quantile of values by linear interpolation."""
    v = sorted(values)
    k = (len(v) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def main():
    """Parse the arguments, compute the per-LM gaps and the across-LM fit, write the files."""
    args = sys.argv[1:]
    out, md, samples, seed, lms = None, None, 10000, 1, []
    while args:
        a = args.pop(0)
        if a in ("--out", "--md", "--samples", "--seed"):
            if not args:
                fail(f"{a} needs a value")
            value = args.pop(0)
            if a == "--out":
                out = value
            elif a == "--md":
                md = value
            else:
                try:
                    number = int(value)
                except ValueError:
                    fail(f"{a} {value}: not a whole number")
                if number < 1:
                    fail(f"{a} {value}: must be 1 or more")
                if a == "--samples":
                    samples = number
                else:
                    seed = number
        elif "=" in a and "," in a.split("=", 1)[1]:
            name, files = a.split("=", 1)
            grid, heads = files.split(",", 1)
            lms.append((name, grid, heads))
        else:
            fail(f"'{a}' is neither an option nor NAME=GRID.csv,HEADS.csv")
    if not out or not lms:
        fail("usage: induction_gap.py --out CSV [--md MD] [--samples N] [--seed S] NAME=GRID.csv,HEADS.csv ...")

    rng = random.Random(seed)
    per_lm = []
    for name, grid, heads in lms:
        sr = seed_f1(grid, "sr", "1", "run")
        unmask = seed_f1(grid, "unmask-full", "0", "run")
        seeds = sorted(set(sr) & set(unmask))
        if not seeds:
            fail(f"{grid}: no seed with both sr r=1 (running) and unmask-full")
        gaps = [sr[s] - unmask[s] for s in seeds]
        draws = [sum(rng.choice(gaps) for _ in gaps) / len(gaps) for _ in range(samples)]
        per_lm.append({"lm": name, "seeds": len(seeds), "sr_f1": sum(sr[s] for s in seeds) / len(seeds),
                       "unmask_f1": sum(unmask[s] for s in seeds) / len(seeds), "gap": sum(gaps) / len(gaps),
                       "lo": percentile(draws, 0.025), "hi": percentile(draws, 0.975),
                       "induction": best_induction(heads), "gaps": gaps})

    xs = [x["induction"] for x in per_lm]
    ys = [x["gap"] for x in per_lm]
    r, slope = pearson_slope(xs, ys)
    rs, slopes = [], []
    if r is not None and len(per_lm) >= 3:
        tries = 0
        while len(rs) < samples and tries < samples * 20:
            tries += 1
            drawn = [rng.choice(per_lm) for _ in per_lm]
            dx = [x["induction"] for x in drawn]
            dy = [sum(rng.choice(x["gaps"]) for _ in x["gaps"]) / len(x["gaps"]) for x in drawn]
            br, bslope = pearson_slope(dx, dy)
            if br is not None:
                rs.append(br)
                slopes.append(bslope)
    interval = lambda v: (percentile(v, 0.025), percentile(v, 0.975)) if v else (float("nan"), float("nan"))
    r_lo, r_hi = interval(rs)
    s_lo, s_hi = interval(slopes)

    columns = ["lm", "seeds", "best_induction", "sr_f1", "unmask_f1", "gap", "lo", "hi"]
    tmp = out + ".tmp"
    with open(tmp, "w", newline="") as handle:
        w = csv.writer(handle, lineterminator="\n")
        w.writerow(columns)
        for x in per_lm:
            w.writerow([x["lm"], x["seeds"], "%.6f" % x["induction"], "%.4f" % x["sr_f1"], "%.4f" % x["unmask_f1"],
                        "%.4f" % x["gap"], "%.4f" % x["lo"], "%.4f" % x["hi"]])
        fmt = lambda v: "" if v is None or v != v else "%.4f" % v
        w.writerow(["pearson_r", len(per_lm), "", "", "", fmt(r), fmt(r_lo), fmt(r_hi)])
        w.writerow(["slope_per_0.1", len(per_lm), "", "", "", fmt(None if slope is None else slope / 10),
                    fmt(s_lo / 10), fmt(s_hi / 10)])
    os.replace(tmp, out)
    manifest = os.path.splitext(out)[0] + ".manifest.json"
    with open(manifest + ".tmp", "w") as handle:
        json.dump({"command": " ".join(["python3", "examples/induction_gap.py"] + sys.argv[1:]),
                   "lms": [{"name": n, "grid": g, "heads": h} for n, g, h in lms],
                   "samples": samples, "seed": seed}, handle, indent=2)
        handle.write("\n")
    os.replace(manifest + ".tmp", manifest)
    print(f"induction_gap: {len(per_lm)} LMs into {out}; r = {fmt(r) or 'none'} [{fmt(r_lo)}, {fmt(r_hi)}]")
    if md:
        lines = ["SR r = 1 (running positions) − unmask-full, mean NLU++ test F1 over the seeds both have "
                 "(paper recipe, full depth; interval: the seeds drawn with replacement), against the LM's best "
                 "induction score on dev (`seqrep heads --r 1`, layers 1 and up); the last rows: Pearson's r and "
                 f"the slope across the LMs, with a two-level bootstrap (LMs, then seeds; {samples} samples).", "",
                 "| LM | seeds | best induction (dev) | sr r=1 | unmask-full | sr − unmask | 95% interval |",
                 "|---|---:|---:|---:|---:|---:|---|"]
        for x in per_lm:
            lines.append(f"| {x['lm']} | {x['seeds']} | {x['induction']:.3f} | {x['sr_f1']:.2f} | {x['unmask_f1']:.2f} | "
                         f"{x['gap']:+.2f} | [{x['lo']:+.2f}, {x['hi']:+.2f}] |")
        if r is None or len(per_lm) < 3:
            lines.append(f"| across {len(per_lm)} LMs | | | | | no fit: fewer than 3 LMs or equal scores | |")
        else:
            lines.append(f"| Pearson's r, {len(per_lm)} LMs | | | | | {r:+.2f} | [{r_lo:+.2f}, {r_hi:+.2f}] |")
            lines.append(f"| slope, points per 0.1 of induction | | | | | {slope / 10:+.2f} | "
                         f"[{s_lo / 10:+.2f}, {s_hi / 10:+.2f}] |")
        tmp = md + ".tmp"
        with open(tmp, "w") as handle:
            handle.write("\n".join(lines) + "\n")
        os.replace(tmp, md)


if __name__ == "__main__":
    main()
