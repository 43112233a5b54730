#!/usr/bin/env python3
"""cue_table.py — the table of docs/gallery.md section 9 from the figures'
numbers: for SR (r = 1) and causal fine-tuning, at epoch 0 and the last
epoch, the names' share of attention on their cue per layer (cue_METHOD.csv,
seqrep plot timeline --what flow --score cue) and dev F1 (cue_METHOD_f1.csv).

Usage: python3 examples/cue_table.py FIGURES_DIR [--out FILE | --check FILE]
  --out FILE    write the table to FILE (via a temporary file)
  --check FILE  exit 1 when FILE is not the table these numbers give (make test)
Exit status 2 on a missing or malformed CSV, naming it.
"""
import csv
import os
import sys

RUNS = (("sr", "SR, r = 1"), ("causal", "causal"))


def fail(msg):
    """One line naming the file; exit 2."""
    print("cue_table: " + msg, file=sys.stderr)
    sys.exit(2)


def read(path):
    """The rows of a timeline CSV (step, series, layer, head, value)."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    if not rows or not {"step", "series", "layer", "value"} <= set(rows[0]):
        fail("%s: not a timeline CSV (step,series,layer,head,value)" % path)
    return rows


def table(fig):
    """The markdown table of both runs, first and last epoch."""
    layers = None
    lines = []
    for name, label in RUNS:
        flow = read(os.path.join(fig, "cue_%s.csv" % name))
        f1 = read(os.path.join(fig, "cue_%s_f1.csv" % name))
        share = {(int(r["step"]), int(r["layer"])): float(r["value"]) for r in flow if r["series"] == "flow/cue"}
        dev = {int(r["step"]): float(r["value"]) for r in f1 if r["series"] == "dev_f1"}
        if not share or not dev:
            fail("%s: no flow/cue or dev_f1 rows" % fig)
        layers = sorted({l for _, l in share})
        last = max(s for s, _ in share)
        for epoch in (0, last):
            cells = ["%.3f" % share[(epoch, l)] for l in layers]
            lines.append("| %s | %d | %s | %.1f |" % (label, epoch, " | ".join(cells), dev[epoch]))
    head = "| fine-tuning | epoch | %s | dev F1 |" % " | ".join("layer %d" % l for l in layers)
    rule = "| --- | ---: | " + "---: | " * len(layers) + "---: |"
    return "\n".join([head, rule] + lines) + "\n"


def main(argv):
    """Parse options, make the table, write or check it."""
    if len(argv) not in (1, 3) or (len(argv) == 3 and argv[1] not in ("--out", "--check")):
        fail("usage: cue_table.py FIGURES_DIR [--out FILE | --check FILE]")
    text = table(argv[0])
    if len(argv) == 1:
        sys.stdout.write(text)
    elif argv[1] == "--out":
        tmp = argv[2] + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, argv[2])
    else:
        try:
            have = open(argv[2]).read()
        except OSError as e:
            fail("%s: %s" % (argv[2], e.strerror))
        if have != text:
            print("cue_table: %s is not the table of %s (run make figures)" % (argv[2], argv[0]), file=sys.stderr)
            return 1
        print("cue_table: %s matches %s" % (argv[2], argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
