#!/usr/bin/env python3
"""house_snapshots.py — the head roles of the house LM variants over
pre-training, in one table (issue 29, the phase change): for every variant
of results/house/variants.csv whose snapshots were measured by
examples/series_heads.sh (CACHE/house/NAME/snapshots/measures/), a row per
snapshot step with
  variant, step, train_loss          from series.json (as `seqrep series --steps` reads it)
  data_best_copy, data_copy_head, data_best_induction, data_induction_head
                                     heads-data: the NLU++ dev sentences, r = 1
  random_best_copy, random_copy_head, random_best_induction, random_induction_head
                                     heads-random: random sequences of 30 pieces
  loss_first_copy, loss_last_copy, icl_score
                                     the manifest of heads-random
into results/house/snapshots.csv, and results/md/house-snapshots.md: every
other snapshot (and the last) of each variant, the best induction head on dev
and the ICL score side by side. Then, per variant, results/house/snapshots-summary.csv
and results/md/house-snapshots-summary.md: the last step's best scores, the
first step from which a score stays at twice its step-0 value or more, and the Pearson
correlation over the snapshots between the ICL score and each best score
(does the loss on the second copy drop when the head appears?).

Usage: python3 examples/house_snapshots.py [--cache DIR] [--seqrep PATH]   (from the
       repository root; DIR default $SEQREP_CACHE or ~/.cache/seqrep, PATH default the
       build/seqrep of this checkout)
Exit status 2 with one line when a variant's measures are incomplete.
"""
import csv
import io
import json
import os
import subprocess
import sys

from house_heads_f1 import pearson


def fail(message):
    """Print one line naming the problem and exit with status 2."""
    print("house_snapshots: " + message, file=sys.stderr)
    sys.exit(2)


def best(path, score):
    """The largest score of a heads CSV and its head as "L2H1"."""
    try:
        rows = list(csv.DictReader(open(path, encoding="utf-8")))
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    if not rows or score not in rows[0]:
        fail("%s: no column %s" % (path, score))
    top = max(rows, key=lambda r: float(r[score]))
    return float(top[score]), "L%sH%s" % (top["layer"], top["head"])


def series_steps(seqrep, series_dir):
    """The snapshots of a series as `seqrep series --steps` reads its series.json:
    a dict per step, {"step": int, "train_loss": float or None}."""
    try:
        run = subprocess.run([seqrep, "series", "--steps", series_dir], capture_output=True, text=True)
    except OSError as e:
        fail("%s: %s (build seqrep, or give --seqrep PATH)" % (seqrep, e.strerror))
    if run.returncode != 0:
        fail(run.stderr.strip() or "%s series --steps %s: exit status %d" % (seqrep, series_dir, run.returncode))
    return [{"step": int(r["step"]), "train_loss": float(r["train_loss"]) if r["train_loss"] else None}
            for r in csv.DictReader(io.StringIO(run.stdout))]


def variant_rows(seqrep, name, series_dir):
    """The rows of one variant, or [] when its snapshots were never measured."""
    measures = os.path.join(series_dir, "measures")
    if not os.path.isdir(measures):
        return []
    rows = []
    for snap in series_steps(seqrep, series_dir):
        stem = "step-%06d" % snap["step"]
        data_csv = os.path.join(measures, "heads-data", stem + ".csv")
        random_csv = os.path.join(measures, "heads-random", stem + ".csv")
        random_manifest = os.path.join(measures, "heads-random", stem + ".manifest.json")
        for path in (data_csv, random_csv, random_manifest):
            if not os.path.exists(path):
                fail("%s is missing (sh examples/series_heads.sh BUILD %s DEV.conll)" % (path, series_dir))
        manifest = json.load(open(random_manifest, encoding="utf-8"))
        row = {"variant": name, "step": snap["step"],
               "train_loss": "" if snap["train_loss"] is None else "%.4f" % snap["train_loss"]}
        for prefix, path in (("data", data_csv), ("random", random_csv)):
            for score, short in (("copy", "copy"), ("induction", "induction")):
                value, head = best(path, score)
                row["%s_best_%s" % (prefix, short)] = "%.3f" % value
                row["%s_%s_head" % (prefix, short)] = head
        for key in ("loss_first_copy", "loss_last_copy", "icl_score"):
            row[key] = "%.4f" % manifest[key]
        rows.append(row)
    return rows


def markdown(rows, names):
    """Every other snapshot and the last, per variant: induction (dev) / ICL."""
    steps = sorted({r["step"] for r in rows})
    by = {(r["variant"], r["step"]): r for r in rows}
    lines = ["| step | " + " | ".join("%s: induction (dev) / ICL" % n for n in names) + " |",
             "| ---: | " + " | ".join("---:" for _ in names) + " |"]
    last = {n: max(s for (v, s) in by if v == n) for n in names}
    for i, step in enumerate(steps):
        if i % 2 and step not in last.values():
            continue
        cells = []
        for n in names:
            r = by.get((n, step))
            cells.append("%s / %.2f" % (r["data_best_induction"], float(r["icl_score"])) if r else "")
        lines.append("| %d | %s |" % (step, " | ".join(cells)))
    return "\n".join(lines) + "\n"


SUMMARY_SCORES = ["data_best_copy", "data_best_induction", "random_best_copy", "random_best_induction"]


def summary(rows, names):
    """A row per variant: last best scores, the step each doubles, correlation with ICL."""
    out = []
    for n in names:
        mine = sorted((r for r in rows if r["variant"] == n), key=lambda r: r["step"])
        icl = [float(r["icl_score"]) for r in mine]
        row = {"variant": n, "last_step": mine[-1]["step"], "icl_score": mine[-1]["icl_score"]}
        for key in SUMMARY_SCORES:
            values = [float(r[key]) for r in mine]
            # the first step from which every snapshot is at least twice step 0
            doubled = [r["step"] for i, r in enumerate(mine) if all(v >= 2 * values[0] for v in values[i:])]
            row[key] = mine[-1][key]
            row[key + "_doubled_at"] = doubled[0] if doubled else ""
            row[key + "_corr_icl"] = "%.2f" % pearson(values, icl)
        out.append(row)
    return out


def summary_markdown(rows):
    """The summary as a table: score at the end, step it doubled, correlation with ICL."""
    lines = ["| variant | last step | ICL | copy (dev) | induction (dev) | copy (random) | induction (random) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        cells = []
        for key in SUMMARY_SCORES:
            at = r[key + "_doubled_at"]
            when = "×2 from step %s" % at if at != "" else "never ×2"
            cells.append("%s (%s; r = %s)" % (r[key], when, r[key + "_corr_icl"]))
        lines.append("| %s | %s | %.2f | %s |" % (r["variant"], r["last_step"], float(r["icl_score"]), " | ".join(cells)))
    return "\n".join(lines) + "\n"


def write_atomic(path, text):
    """Write text to path through a temporary file."""
    with open(path + ".tmp", "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main(argv):
    cache = os.environ.get("SEQREP_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "seqrep")
    seqrep = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "seqrep")
    options = {"--cache": cache, "--seqrep": seqrep}
    if len(argv) % 2 or any(a not in options for a in argv[::2]):
        fail("usage: python3 examples/house_snapshots.py [--cache DIR] [--seqrep PATH]")
    options.update(zip(argv[::2], argv[1::2]))
    cache, seqrep = options["--cache"], options["--seqrep"]
    variants = [r["variant"] for r in csv.DictReader(open("results/house/variants.csv", encoding="utf-8"))]
    rows, names = [], []
    for name in variants:
        got = variant_rows(seqrep, name, os.path.join(cache, "house", name, "snapshots"))
        if got:
            rows += got
            names.append(name)
        else:
            print("house_snapshots: %s: no measured snapshots, left out" % name, file=sys.stderr)
    if not rows:
        fail("no variant has measured snapshots")
    cols = list(rows[0].keys())
    with open("results/house/snapshots.csv.tmp", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace("results/house/snapshots.csv.tmp", "results/house/snapshots.csv")
    write_atomic("results/md/house-snapshots.md", markdown(rows, names))
    summ = summary(rows, names)
    head = list(summ[0].keys())
    write_atomic("results/house/snapshots-summary.csv",
                 ",".join(head) + "\n" + "".join(",".join(str(r[k]) for k in head) + "\n" for r in summ))
    write_atomic("results/md/house-snapshots-summary.md", summary_markdown(summ))
    print("wrote results/house/snapshots.csv (%d rows) and results/md/house-snapshots.md" % len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
