#!/usr/bin/env python3
"""snapshot_seeds.py — is a rise of a head score between two snapshots a
jump, or within what another pre-training seed does? (issue 41, part 3d)

For LMs pre-trained with the same settings and different seeds (NAME,
NAME-seed2, NAME-seed3, ...), whose snapshots were measured by
examples/series_heads.sh (CACHE/house/LM/snapshots/measures/), the best
head scores at every snapshot (as examples/house_snapshots.py reads them:
copy and induction on NLU++ dev and on random sequences, and the ICL score)
and, per group of seeds and score:

  seeds            how many seeds the group has
  final_mean, final_lo, final_hi   the last step's mean, smallest and largest score
  max_spread, max_spread_step      the largest max − min between seeds at one step
  jump, jump_seed, jump_from, jump_to   the largest rise of one seed between
                   two consecutive snapshots
  spread_at_jump   the max − min between seeds at jump_from or jump_to, the larger
  jump_exceeds_spread   yes when jump > spread_at_jump: the rise is bigger than
                   the seeds' disagreement at that moment (a candidate phase
                   change); no when another seed is as far apart as the rise

Usage: python3 examples/snapshot_seeds.py [--cache DIR] [--seqrep PATH]
           --out-dir DIR --md MD GROUP=LM,LM[,LM...] ...
Writes OUT_DIR/snapshots.csv (a row per LM and snapshot), OUT_DIR/snapshots-spread.csv
(a row per group and score) and MD, through temporary files. Exit status 2
with one line when an LM's snapshots are not measured.
"""
import csv
import os
import sys

from house_snapshots import SUMMARY_SCORES, variant_rows, write_atomic

SCORES = SUMMARY_SCORES + ["icl_score"]


def fail(message):
    """Print one line naming the problem and exit with status 2."""
    print("snapshot_seeds: " + message, file=sys.stderr)
    sys.exit(2)


def parse(argv):
    """The options and the groups {name: [lm, ...]} in the order given."""
    cache = os.environ.get("SEQREP_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "seqrep")
    options = {"--cache": cache, "--seqrep": os.path.join("build", "seqrep"), "--out-dir": None, "--md": None}
    groups = {}
    i = 0
    while i < len(argv):
        if argv[i] in options:
            if i + 1 >= len(argv):
                fail("option %s needs a value" % argv[i])
            options[argv[i]] = argv[i + 1]
            i += 2
            continue
        name, eq, lms = argv[i].partition("=")
        if not eq or not name or len([x for x in lms.split(",") if x]) < 2:
            fail("'%s': a group is NAME=LM,LM[,LM...] (two seeds or more)" % argv[i])
        groups[name] = [x for x in lms.split(",") if x]
        i += 1
    if not options["--out-dir"] or not options["--md"] or not groups:
        fail("usage: python3 examples/snapshot_seeds.py [--cache DIR] [--seqrep PATH] --out-dir DIR --md MD GROUP=LM,LM ...")
    return options, groups


def spread_row(group, lms, rows, score):
    """One group's row for one score: the seeds' spread per step and the largest rise."""
    by = {}
    for r in rows:
        if r["variant"] in lms:
            by.setdefault(r["variant"], {})[r["step"]] = float(r[score])
    steps = sorted(set.intersection(*(set(by[lm]) for lm in lms)))
    if len(steps) < 2:
        fail("group %s: fewer than two snapshot steps common to %s" % (group, ", ".join(lms)))
    spread = {s: max(by[lm][s] for lm in lms) - min(by[lm][s] for lm in lms) for s in steps}
    jump = None
    for lm in lms:
        for a, b in zip(steps, steps[1:]):
            rise = by[lm][b] - by[lm][a]
            if jump is None or rise > jump[0]:
                jump = (rise, lm, a, b)
    last = [by[lm][steps[-1]] for lm in lms]
    widest = max(steps, key=lambda s: spread[s])
    at_jump = max(spread[jump[2]], spread[jump[3]])
    return {"group": group, "score": score, "seeds": len(lms), "lms": " ".join(lms),
            "steps": len(steps), "last_step": steps[-1],
            "final_mean": "%.3f" % (sum(last) / len(last)), "final_lo": "%.3f" % min(last),
            "final_hi": "%.3f" % max(last),
            "max_spread": "%.3f" % spread[widest], "max_spread_step": widest,
            "jump": "%.3f" % jump[0], "jump_seed": jump[1], "jump_from": jump[2], "jump_to": jump[3],
            "spread_at_jump": "%.3f" % at_jump,
            "jump_exceeds_spread": "yes" if jump[0] > at_jump else "no"}


def markdown(table):
    """The spread table: per group and score, the end, the widest spread, the largest rise."""
    lines = ["| group | score | seeds | last step: mean [min, max] | widest seed spread (step) | "
             "largest rise between snapshots (seed, steps) | seed spread there | rise > spread |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in table:
        lines.append("| %s | %s | %d | %s [%s, %s] | %s (%s) | %s (%s, %s→%s) | %s | %s |" % (
            r["group"], r["score"], r["seeds"], r["final_mean"], r["final_lo"], r["final_hi"],
            r["max_spread"], r["max_spread_step"], r["jump"], r["jump_seed"], r["jump_from"], r["jump_to"],
            r["spread_at_jump"], r["jump_exceeds_spread"]))
    return "\n".join(lines) + "\n"


def csv_text(rows, cols):
    """Rows of dicts as CSV text with the given columns."""
    return ",".join(cols) + "\n" + "".join(",".join(str(r[c]) for c in cols) + "\n" for r in rows)


def main(argv):
    options, groups = parse(argv)
    rows = []
    for group, lms in groups.items():
        for lm in lms:
            got = variant_rows(options["--seqrep"], lm, os.path.join(options["--cache"], "house", lm, "snapshots"))
            if not got:
                fail("%s: its snapshots are not measured (sh examples/series_heads.sh BUILD %s DEV.conll)" %
                     (lm, os.path.join(options["--cache"], "house", lm, "snapshots")))
            rows += got
    table = [spread_row(group, lms, rows, score) for group, lms in groups.items() for score in SCORES]
    out = options["--out-dir"]
    os.makedirs(out, exist_ok=True)
    write_atomic(os.path.join(out, "snapshots.csv"), csv_text(rows, list(rows[0].keys())))
    write_atomic(os.path.join(out, "snapshots-spread.csv"), csv_text(table, list(table[0].keys())))
    write_atomic(options["--md"], markdown(table))
    print("snapshot_seeds: %d snapshots of %d LMs; wrote %s/snapshots.csv, %s/snapshots-spread.csv and %s" %
          (len(rows), sum(len(x) for x in groups.values()), out, out, options["--md"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
