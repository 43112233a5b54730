#!/usr/bin/env python3
"""house_heads.py — the heads stage of a variant's grid (examples/house_grid.sh
with HOUSE_VARIANT, issue 29): `seqrep heads` on the NLU++ test sentences at
r = 1 for a pre-trained LM and for every fine-tuned sr run of a paper-recipe
sweep (its LoRA adapters merged in with --adapter), and one CSV summing them up.

  LM (--lm, the variant's; --base-lm, the house LM's, measured once):
    DIR/lm-nlupp-run.csv       --data TEST --r 1 (positions running on)
    DIR/lm-nlupp-restart.csv   --data TEST --r 1 --copy-positions restart
    DIR/lm-random50.csv        --random 50 --r 1 (100 sequences, seed 1): the
                               induction test and the ICL score (in its manifest)
  every sr run of --sweep at full depth whose command saved its model
  (sweep --save-models: `--save FILE`), r = 1 with the run's own positions:
    OUT_DIR/runs/RUN.csv       RUN: the run's file name in the sweep's runs folder

A file already measured is kept (an LM's always; a run's while it is newer
than the run's saved model). Only the paper recipe's runs are measured: a
full-recipe `finetune --save` holds the head alone, not the fine-tuned
weights, so `heads --adapter` cannot read it. A run whose command has no
--save, or whose saved model is gone (a fresh checkout: replay it), is
counted and left out.

The summary (--summary, written through a temporary file) has a row per
heads CSV:
  model          base | the variant's name
  run            lm | the run's configuration ("sr r=4 restart")
  seed           the run's seed (empty for an LM)
  data           nlupp-test | random50
  r, positions   how heads ran (r = 1; run | restart)
  best_copy, copy_layer, copy_head                the head with the largest copy score
  best_induction, induction_layer, induction_head the head with the largest induction score
  icl_score      loss on the first copy minus the last (random50 only)
  heads_csv      the per-head file
and --md writes it as a markdown table.

Usage: python3 examples/house_heads.py SEQREP --name NAME --lm LM --data TEST.conll
           --out-dir DIR --summary CSV [--md MD] [--sweep SWEEP.csv]
           [--base-lm LM] --base-dir DIR [--threads N]
"""
import argparse
import csv
import io
import json
import os
import shlex
import subprocess
import sys

RANDOM_PIECES = 50
COLUMNS = ["model", "run", "seed", "data", "r", "positions", "best_copy", "copy_layer", "copy_head",
           "best_induction", "induction_layer", "induction_head", "icl_score", "heads_csv"]


def fail(message):
    """Print one line naming the problem and exit with status 2."""
    print(f"house_heads: {message}", file=sys.stderr)
    sys.exit(2)


def option(words, name):
    """The value after option NAME in the word list WORDS, or None."""
    return words[words.index(name) + 1] if name in words and words.index(name) + 1 < len(words) else None


def run_heads(seqrep, out, args, threads):
    """seqrep heads ARGS --out OUT (its output into OUT's .log); stop on failure."""
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    command = [seqrep, "heads"] + args + ["--out", out]
    if threads:
        command += ["--threads", str(threads)]
    log = os.path.splitext(out)[0] + ".log"
    with open(log, "w") as handle:
        done = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        last = open(log).read().strip().splitlines()[-1:] or ["exit status %d" % done.returncode]
        fail(f"{' '.join(shlex.quote(w) for w in command)}: {last[0]} (log {log})")


def lm_files(directory):
    """The three measurements of an LM: (file, data label, positions, heads options)."""
    return [(os.path.join(directory, "lm-nlupp-run.csv"), "nlupp-test", "run", []),
            (os.path.join(directory, "lm-nlupp-restart.csv"), "nlupp-test", "restart",
             ["--copy-positions", "restart"]),
            (os.path.join(directory, "lm-random50.csv"), "random50", "run", None)]


def measure_lm(seqrep, lm, data, directory, threads):
    """The LM's three heads CSVs in DIRECTORY (those already there are kept)."""
    for path, _, _, extra in lm_files(directory):
        if os.path.exists(path):
            continue
        what = ["--random", str(RANDOM_PIECES)] if extra is None else ["--data", data] + extra
        print(f"house_heads: {lm} on {what[0][2:]} -> {path}", flush=True)
        run_heads(seqrep, path, ["--model", lm, "--r", "1"] + what, threads)


def label(row):
    """The configuration of a sweep row, as seqrep compare names it."""
    text = row["method"] + (" r=" + row["r"] if row["method"] == "sr" else "")
    return text + (" restart" if row.get("positions") == "restart" else "")


def sweep_runs(sweep):
    """The sr runs at full depth of the paper recipe in SWEEP: (row, command words)."""
    with open(sweep, newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        return []
    if "command" not in rows[0]:
        fail(f"{sweep}: line 1: no command column (not a seqrep sweep CSV)")
    deepest = max(int(row["exit"]) for row in rows)
    return [(row, shlex.split(row["command"])) for row in rows
            if row["method"] == "sr" and row.get("recipe") == "paper" and int(row["exit"]) == deepest]


def measure_runs(seqrep, lm, data, sweep, out_dir, threads):
    """heads --adapter for each sr run of SWEEP with a saved model; returns
    [(row, heads csv)] of those measured, and prints how many had none."""
    measured, unsaved = [], 0
    for row, words in sweep_runs(sweep):
        saved = option(words, "--save")
        if not saved or not os.path.exists(saved):
            unsaved += 1
            continue
        name = os.path.splitext(os.path.basename(option(words, "--out")))[0]
        path = os.path.join(out_dir, "runs", name + ".csv")
        if not (os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(saved)):
            positions = row.get("positions") or "run"
            print(f"house_heads: {label(row)} seed {row['seed']} -> {path}", flush=True)
            run_heads(seqrep, path, ["--model", lm, "--adapter", saved, "--data", data, "--r", "1",
                                     "--copy-positions", positions], threads)
        measured.append((row, path))
    if unsaved:
        print(f"house_heads: {sweep}: {unsaved} sr runs have no saved model, left out (replay them: "
              f"examples/house_replay.py, or sweep --save-models --redo-unsaved)", file=sys.stderr)
    return measured


def best(rows, score):
    """(value, layer, head) of the head with the largest SCORE."""
    top = max(rows, key=lambda r: float(r[score]))
    return "%.4f" % float(top[score]), top["layer"], top["head"]


def summary_row(model, run, seed, data, positions, path):
    """One row of the summary from the heads CSV PATH (and its manifest)."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        fail(f"{path}: no heads")
    copy, induction = best(rows, "copy"), best(rows, "induction")
    icl = ""
    if data == "random50":
        manifest = json.load(open(os.path.splitext(path)[0] + ".manifest.json"))
        icl = "" if manifest.get("icl_score") is None else "%.4f" % manifest["icl_score"]
    return [model, run, seed, data, "1", positions, *copy, *induction, icl, path]


def write_atomic(path, text):
    """Write TEXT to PATH through a temporary file."""
    temporary = f"{path}.tmp.{os.getpid()}"
    with open(temporary, "w", newline="") as handle:
        handle.write(text)
    os.replace(temporary, path)


def markdown(rows):
    """The summary as a markdown table."""
    lines = ["| model | run | seed | data | positions | best copy (layer.head) | best induction "
             "(layer.head) | ICL score |", "|---|---|---:|---|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[5]} | {r[6]} ({r[7]}.{r[8]}) | "
                     f"{r[9]} ({r[10]}.{r[11]}) | {r[12]} |")
    return "\n".join(lines) + "\n"


def main():
    """Parse options, measure what is missing, write the summary."""
    parser = argparse.ArgumentParser(description="heads of a variant's LM and of its fine-tuned sr runs")
    parser.add_argument("seqrep")
    parser.add_argument("--name", required=True)
    parser.add_argument("--lm", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--summary", required=True)
    parser.add_argument("--md")
    parser.add_argument("--sweep")
    parser.add_argument("--base-lm")
    parser.add_argument("--base-dir", required=True)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    if not os.path.isfile(args.seqrep) or not os.access(args.seqrep, os.X_OK):
        fail(f"{args.seqrep}: not an executable seqrep (give BUILD/seqrep; run make)")
    for path, what in ((args.lm, "--lm"), (args.data, "--data")):
        if not os.path.isfile(path):
            fail(f"{what} {path}: no such file")
    if args.sweep and not os.path.isfile(args.sweep):
        fail(f"--sweep {args.sweep}: no such file")
    if args.base_lm:
        measure_lm(args.seqrep, args.base_lm, args.data, args.base_dir, args.threads)
    measure_lm(args.seqrep, args.lm, args.data, args.out_dir, args.threads)
    runs = measure_runs(args.seqrep, args.lm, args.data, args.sweep, args.out_dir, args.threads) if args.sweep else []
    rows = []
    for model, directory in (("base", args.base_dir), (args.name, args.out_dir)):
        for path, data, positions, _ in lm_files(directory):
            if os.path.exists(path):
                rows.append(summary_row(model, "lm", "", data, positions, path))
            elif model == "base":
                print(f"house_heads: {path}: not measured (the house LM is not the committed one, or "
                      f"is missing); its row is left out", file=sys.stderr)
    for row, path in runs:
        rows.append(summary_row(args.name, label(row), row["seed"], "nlupp-test", row.get("positions") or "run", path))
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    write_atomic(args.summary, text.getvalue())
    if args.md:
        write_atomic(args.md, markdown(rows))
    print(f"house_heads: {len(rows)} rows ({len(runs)} fine-tuned runs) in {args.summary}")


if __name__ == "__main__":
    main()
