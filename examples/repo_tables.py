"""repo_tables.py - the tables of docs/repo.md, from the CSV files of the RePo
experiments (examples/repo_figures.sh copies them into results/repo/).

Writes results/md/repo-NAME.md for every table; docs/repo.md holds each one
between <!-- BEGIN:repo-NAME --> and <!-- END:repo-NAME --> markers and
tests/checks/check_docs_tables.py checks that they are equal. Accuracy cells are the
mean over the five depths of a length (each depth 50 examples); attention
cells the mean mass on the evidence at the longest length; z ranges the mean
over inputs and heads.

Usage: /usr/bin/python3 examples/repo_tables.py [RESULTS_DIR]   (default results/repo)
Only the standard library is used.
"""
import csv
import os
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
METHODS = ["rope", "nope", "const", "hybrid", "repo"]


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write(name, lines):
    out = os.path.join(ROOT, "results", "md", "repo-%s.md" % name)
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(out + ".tmp", out)
    print("wrote results/md/repo-%s.md" % name)


def accuracy_table(rows, unit):
    """method x length: mean accuracy over depths."""
    cells = defaultdict(list)
    for r in rows:
        cells[(r["method"], int(r["length"]))].append(float(r["accuracy"]))
    lengths = sorted({l for _, l in cells})
    methods = [m for m in METHODS if any((m, l) in cells for l in lengths)]
    head = "| method | %d %s | %s |" % (lengths[0], unit, " | ".join(str(l) for l in lengths[1:]))
    lines = [head, "| --- |" + " --- |" * len(lengths)]
    for m in methods:
        lines.append("| %s | %s |" % (m, " | ".join("%.3f" % (sum(cells[(m, l)]) / len(cells[(m, l)]))
                                                 for l in lengths)))
    return lines


def attention_table(rows, labels):
    """layer x method: attention mass on the evidence at the longest length."""
    longest = max(int(r["length"]) for r in rows)
    cells = {(int(r["layer"]), r["method"]): float(r["needle_mass"]) for r in rows
             if int(r["length"]) == longest}
    layers = sorted({l for l, _ in cells})
    methods = [m for m in METHODS if m != "const" and any((l, m) in cells for l in layers)]
    lines = ["| layer | %s |" % " | ".join(methods), "| --- |" + " --- |" * len(methods)]
    for l in layers:
        lines.append("| %s | %s |" % (labels.get(l, str(l)),
                                      " | ".join("%.3f" % cells[(l, m)] for m in methods)))
    return lines


def range_table(rows):
    """layer x length: mean z range, and the integer index range below."""
    cells = {(int(r["layer"]), int(r["length"])): r for r in rows}
    layers = sorted({l for l, _ in cells})
    lengths = sorted({t for _, t in cells})
    lines = ["| layer | %d tokens | %s |" % (lengths[0], " | ".join(str(t) for t in lengths[1:])),
             "| --- |" + " --- |" * len(lengths)]
    for l in layers:
        lines.append("| %d | %s |" % (l, " | ".join("%.2f" % float(cells[(l, t)]["z_range_mean"])
                                                   for t in lengths)))
    lines.append("| (token index, RoPE) | %s |" % " | ".join(cells[(layers[0], t)]["index_range"]
                                                        for t in lengths))
    return lines


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "results", "repo")
    write("kv", accuracy_table(read(os.path.join(d, "kv.csv")), "tokens"))
    write("needle", accuracy_table(read(os.path.join(d, "needle.csv")), "tokens"))
    write("table", accuracy_table(read(os.path.join(d, "table.csv")), "tokens"))
    rope_below = {0: "0 (RoPE in repo)", 1: "1 (RoPE in repo)", 2: "2 (RePo)", 3: "3 (RePo)"}
    write("kv-attention", attention_table(read(os.path.join(d, "kv-attention.csv")), rope_below))
    write("needle-attention", attention_table(read(os.path.join(d, "needle-attention.csv")), {}))
    write("kv-range", range_table(read(os.path.join(d, "kv-range.csv"))))
    cont = read(os.path.join(d, "continued.csv"))
    lines = ["| continued as | validation loss |", "| --- | --- |"]
    for r in cont:
        lines.append("| %s | %.3f |" % (r["label"], float(r["validation_loss"])))
    write("continued", lines)


if __name__ == "__main__":
    main()
