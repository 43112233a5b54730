#!/usr/bin/env python3
"""ablation_table.py — the two steps of examples/ablation.sh that read CSVs:
which heads to take away (from `seqrep heads` on the dev split) and the
table of every interval the sweeps' comparisons hold.

  pick HEADS.csv
      prints one line per head to take away: "ROLE L.H SCORE", ROLE one of
        induction  the head with the largest induction score in layers 1 and
                   up (an induction circuit needs a previous-token head in a
                   layer below, so layer 0 is left out)
        previous   the head with the largest previous-token score in a layer
                   below the induction head's
        control    every other head of the induction head's layer, in order
      Ties go to the lower layer, then the lower head.

  summary --out CSV LM:CONDITION:HEADS:COMPARE.csv ...
      one row per pair of every compare CSV (seqrep compare), with the LM, the
      condition (none | induction | previous | control), the heads taken away
      and which comparison it is ("within": A - B inside one sweep; "change":
      the ablated sweep minus the one without, the same configuration), the
      interval as compare printed it. Written through a temporary file.
"""
import csv
import os
import sys

SUMMARY_COLUMNS = ["lm", "condition", "ablated", "comparison", "a", "b", "seeds", "f1_a", "f1_b",
                   "diff", "lo", "hi", "resolved"]


def fail(message):
    """Print one line naming the problem and exit with status 2."""
    print(f"ablation_table: {message}", file=sys.stderr)
    sys.exit(2)


def read_heads(path):
    """The rows of a heads CSV as (layer, head, {score: value})."""
    try:
        rows = list(csv.DictReader(open(path)))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    heads = []
    for line, row in enumerate(rows, start=2):
        try:
            heads.append((int(row["layer"]), int(row["head"]),
                          {k: float(row[k]) for k in ("induction", "previous")}))
        except (KeyError, ValueError):
            fail(f"{path}:{line}: not a row of seqrep heads (layer, head, induction, previous)")
    return heads


def best(heads, score, keep):
    """The (layer, head, scores) with the largest score among the heads keep accepts."""
    chosen = [h for h in heads if keep(h)]
    if not chosen:
        return None
    return max(chosen, key=lambda h: (h[2][score], -h[0], -h[1]))


def pick(path):
    """Print the heads to take away (see the module's doc)."""
    heads = read_heads(path)
    induction = best(heads, "induction", lambda h: h[0] >= 1)
    if induction is None:
        fail(f"{path}: no head in layer 1 or above")
    previous = best(heads, "previous", lambda h: h[0] < induction[0])
    print(f"induction {induction[0]}.{induction[1]} {induction[2]['induction']:.6f}")
    print(f"previous {previous[0]}.{previous[1]} {previous[2]['previous']:.6f}")
    for layer, head, scores in heads:
        if layer == induction[0] and head != induction[1]:
            print(f"control {layer}.{head} {scores['induction']:.6f}")


def summary(out, items):
    """Write the summary table of the compare CSVs named by items."""
    rows = []
    for item in items:
        parts = item.split(":", 3)
        if len(parts) != 4:
            fail(f"'{item}' is not LM:CONDITION:HEADS:COMPARE.csv")
        lm, condition, ablated, path = parts
        if not os.path.exists(path):
            continue
        kind = "change" if path.endswith(".change.csv") else "within"
        for row in csv.DictReader(open(path)):
            rows.append([lm, condition, ablated, kind] + [row[k] for k in SUMMARY_COLUMNS[4:]])
    tmp = out + ".tmp"
    with open(tmp, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(SUMMARY_COLUMNS)
        writer.writerows(rows)
    os.replace(tmp, out)
    print(f"ablation_table: {len(rows)} rows into {out}")


def main():
    """pick HEADS.csv | summary --out CSV ITEM..."""
    if len(sys.argv) == 3 and sys.argv[1] == "pick":
        pick(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "summary" and sys.argv[2] == "--out":
        summary(sys.argv[3], sys.argv[4:])
    else:
        fail("usage: ablation_table.py pick HEADS.csv | summary --out CSV LM:CONDITION:HEADS:COMPARE.csv ...")


if __name__ == "__main__":
    main()
