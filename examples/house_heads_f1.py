#!/usr/bin/env python3
"""house_heads_f1.py — do head scores predict the F1 of SR? (issue 29): joins
the heads of every fine-tuned sr run (heads-summary.csv of
examples/house_heads.py) with the run's dev and test F1 (the sweep CSV), and
gives the Pearson correlation of F1 with the best copy and the best
induction score over all runs and within each configuration (the seeds of
one configuration differ only in their fine-tuning).

Writes OUT.csv (a row per run: run, seed, positions, best_copy,
best_induction, dev_f1, test_f1) and OUT.md (a row per group: the runs, the
mean scores and F1, the two correlations with test F1), both through a
temporary file.

Usage: python3 examples/house_heads_f1.py HEADS_SUMMARY.csv SWEEP.csv OUT   (OUT without extension)
"""
import csv
import os
import sys


def fail(message):
    """Print one line naming the problem and exit with status 2."""
    print("house_heads_f1: " + message, file=sys.stderr)
    sys.exit(2)


def pearson(xs, ys):
    """Pearson correlation of two equally long lists (0 when one is constant)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else 0.0


def read(path):
    """The rows of a CSV file, or exit 2 naming it."""
    try:
        return list(csv.DictReader(open(path, encoding="utf-8")))
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))


def run_label(row):
    """The label house_heads.py gives an sr run of the sweep: "sr r=4 restart"."""
    return "sr r=%s%s" % (row["r"], " restart" if row.get("positions") == "restart" else "")


def joined(summary_path, sweep_path):
    """A row per fine-tuned run measured by heads, with its F1."""
    f1 = {}
    for r in read(sweep_path):
        if r["method"] == "sr":
            f1[(run_label(r), r["seed"])] = (r["dev_f1"], r["test_f1"])
    rows = []
    for r in read(summary_path):
        if r["run"] == "lm" or r["data"] != "nlupp-test":
            continue
        key = (r["run"], r["seed"])
        if key not in f1:
            fail("%s: the run %s, seed %s is not in %s" % (summary_path, key[0], key[1], sweep_path))
        rows.append({"run": r["run"], "seed": r["seed"], "positions": r["positions"],
                     "best_copy": r["best_copy"], "best_induction": r["best_induction"],
                     "dev_f1": f1[key][0], "test_f1": f1[key][1]})
    if not rows:
        fail("%s has no fine-tuned run measured on nlupp-test" % summary_path)
    return rows


def group_line(name, rows):
    """One markdown row: runs, mean copy, induction and test F1, correlations."""
    copy = [float(r["best_copy"]) for r in rows]
    ind = [float(r["best_induction"]) for r in rows]
    test = [float(r["test_f1"]) for r in rows]
    n = len(rows)
    return "| %s | %d | %.3f | %.3f | %.2f | %+.2f | %+.2f |" % (
        name, n, sum(copy) / n, sum(ind) / n, sum(test) / n, pearson(copy, test), pearson(ind, test))


def main(argv):
    if len(argv) != 3:
        fail("usage: python3 examples/house_heads_f1.py HEADS_SUMMARY.csv SWEEP.csv OUT")
    rows = joined(argv[0], argv[1])
    out = argv[2]
    cols = ["run", "seed", "positions", "best_copy", "best_induction", "dev_f1", "test_f1"]
    with open(out + ".csv.tmp", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace(out + ".csv.tmp", out + ".csv")
    lines = ["| runs | n | mean best copy | mean best induction | mean test F1 | r(copy, F1) | r(induction, F1) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
             group_line("every sr run", rows)]
    for name in sorted({r["run"] for r in rows}):
        lines.append(group_line(name, [r for r in rows if r["run"] == name]))
    with open(out + ".md.tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(out + ".md.tmp", out + ".md")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
