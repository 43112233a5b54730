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
        together   every head of the induction head's layer whose induction
                   score is at least twice its chance level (a uniform head's,
                   the induction_chance column), taken away at once, as
                   "L.H+L.H" — only when there are two or more: one induction
                   head taken away may be stood in for by another
        together-control   as many other heads of that layer, those with the
                   lowest induction scores, taken away at once: the control
                   of together (taking two heads away may cost more than one
                   whatever they do)
      Ties go to the lower layer, then the lower head.

  summary --out CSV [--md MD] LM:CONDITION:HEADS:COMPARE.csv ...
      one row per pair of every compare CSV (seqrep compare), with the LM, the
      condition (none | induction | previous | control | together |
      together-control), the heads taken away
      and which comparison it is:
        within   A - B inside one sweep (NAME.compare.csv)
        change   the ablated sweep minus the one without, the same
                 configuration (NAME.change.csv)
        gap      the change of a gap (compare --gap X,Y): X - Y with the head
                 taken away minus X - Y without it (NAME.gap-*.csv)
        control  the same change of a gap between two ablated sweeps: with
                 the induction head taken away minus with a control head of
                 its layer taken away (NAME.vs-*.csv)
      (of a --gap CSV only its last row, the change, is kept: the two gaps
      are rows of the within comparisons), the interval as compare printed
      it. With --md, the same rows as markdown tables, one per comparison
      kind (results/md/house-ablation.md). Written through temporary files.
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
                          {k: float(row[k]) for k in ("induction", "previous", "induction_chance")}))
        except (KeyError, ValueError):
            fail(f"{path}:{line}: not a row of seqrep heads (layer, head, induction, previous, induction_chance)")
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
    together = [(layer, head, scores["induction"]) for layer, head, scores in heads
                if layer == induction[0] and scores["induction"] >= 2 * scores["induction_chance"]]
    if len(together) > 1:
        names = "+".join(f"{layer}.{head}" for layer, head, _ in together)
        print(f"together {names} {min(score for _, _, score in together):.6f}")
        others = sorted(((scores["induction"], layer, head) for layer, head, scores in heads
                         if layer == induction[0] and (layer, head) not in {(l, h) for l, h, _ in together}))
        others = sorted(others[:len(together)], key=lambda o: o[2])
        if len(others) == len(together):
            names = "+".join(f"{layer}.{head}" for _, layer, head in others)
            print(f"together-control {names} {max(score for score, _, _ in others):.6f}")


def summary(out, items, md=None):
    """Write the summary table of the compare CSVs named by items."""
    rows = []
    for item in items:
        parts = item.split(":", 3)
        if len(parts) != 4:
            fail(f"'{item}' is not LM:CONDITION:HEADS:COMPARE.csv")
        lm, condition, ablated, path = parts
        if not os.path.exists(path):
            continue
        kind = comparison_kind(os.path.basename(path))
        pairs = list(csv.DictReader(open(path)))
        if kind in ("gap", "control"):
            pairs = pairs[-1:]
        for row in pairs:
            rows.append([lm, condition, ablated, kind] + [row[k] for k in SUMMARY_COLUMNS[4:]])
    tmp = out + ".tmp"
    with open(tmp, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(SUMMARY_COLUMNS)
        writer.writerows(rows)
    os.replace(tmp, out)
    print(f"ablation_table: {len(rows)} rows into {out}")
    if md:
        write_markdown(md, rows)


def comparison_kind(name):
    """The comparison a compare CSV of examples/ablation.sh holds, by its name."""
    if name.endswith(".change.csv"):
        return "change"
    if ".gap-" in name:
        return "gap"
    if ".vs-" in name:
        return "control"
    return "within"


MD_TITLES = {
    "within": "Inside each sweep: a − b, the same heads taken away from both",
    "change": "Taking the head away: the same configuration, ablated − not",
    "gap": "The change of a gap: (a) with the head taken away − (b) without it",
    "control": "The induction head against each control head of its layer, and the layer's induction heads together against as many others together: the same gap, (a) induction head(s) taken away − (b) control head(s) taken away",
}


def write_markdown(path, rows):
    """The summary rows as markdown, a table per comparison kind."""
    lines = ["Paired bootstrap over fine-tuning seeds and test sentences (seqrep compare, 10000 samples): "
             "mean test F1 (strict IOB2 span micro-F1, %) and the 2.5th to 97.5th percentile of a − b; "
             "NLU++, paper recipe, r = 1 (examples/ablation.sh)."]
    for kind in ("within", "change", "gap", "control"):
        chosen = [r for r in rows if r[3] == kind]
        if not chosen:
            continue
        lines += ["", f"**{MD_TITLES[kind]}**", "",
                  "| LM | heads taken away | a | b | seeds | F1 a | F1 b | a − b | 95% interval | resolved |",
                  "|---|---|---|---|---:|---:|---:|---:|---|---|"]
        for lm, condition, ablated, _, a, b, seeds, f1a, f1b, diff, lo, hi, resolved in chosen:
            heads = "none" if ablated == "none" else f"{ablated} ({condition})"
            lines.append(f"| {lm} | {heads} | {a} | {b} | {seeds} | {float(f1a):.2f} | {float(f1b):.2f} | "
                         f"{float(diff):+.2f} | [{float(lo):+.2f}, {float(hi):+.2f}] | {resolved} |")
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def main():
    """pick HEADS.csv | summary --out CSV [--md MD] ITEM..."""
    if len(sys.argv) == 3 and sys.argv[1] == "pick":
        pick(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "summary" and sys.argv[2] == "--out":
        items, md = sys.argv[4:], None
        if items[:1] == ["--md"] and len(items) >= 2:
            md, items = items[1], items[2:]
        summary(sys.argv[3], items, md)
    else:
        fail("usage: ablation_table.py pick HEADS.csv | summary --out CSV [--md MD] LM:CONDITION:HEADS:COMPARE.csv ...")


if __name__ == "__main__":
    main()
