#!/usr/bin/env python3
"""house_replay.py — run again the finished runs of a sweep CSV whose per-run
files (the run's CSV and its predictions, kept out of git) are missing, from
the `command` column the sweep wrote, and check that each replay gives the
committed row's dev and test F1. seqrep compare needs the predictions; a fresh
checkout has only the CSV. A replay that disagrees is reported and the run's
files are kept for a look; the exit status is then 1.

Replays run JOBS at a time; the thread count is in each command, so it is the
committed one, and by default JOBS is the number of cores over the largest
thread count of the commands (a command without --threads uses every core).
--missing only counts the runs to replay: exit status 0 if there are none,
1 if there are some (examples/house_grid.sh asks it before its tables).
--record OUT.csv writes, after the replays, one line per row (of those the
filters keep) whose per-run CSV is here: the committed and the replayed dev
and test F1, whether they agree, and this machine's CPU, so that a replay on
another machine is kept as evidence (results/house/replay-*.csv).
Runs are bit-for-bit repeatable for one build and one BLAS kernel set (docs/performance.md, Reproducibility): use the build and the
OPENBLAS_CORETYPE the grid used.

Usage: python3 examples/house_replay.py SEQREP SWEEP.csv [--jobs N] [--missing]
           [--exit full|early|all] [--only COLUMN=V1,V2 ...] [--record OUT.csv]

--only keeps the rows whose COLUMN (of the sweep CSV: method, r, positions,
seed, ...) is one of the values; give it once per column.
"""
import argparse
import concurrent.futures
import csv
import os
import shlex
import subprocess
import sys
import time


def fail(message):
    """Print one line naming the problem and exit with status 2."""
    print(f"house_replay: {message}", file=sys.stderr)
    sys.exit(2)


def option(words, name):
    """The value after option NAME in the word list WORDS, or None."""
    return words[words.index(name) + 1] if name in words else None


def planned(sweep_path, layers_wanted, only, present=False):
    """The rows of SWEEP_PATH to replay: (row, argv) for each row whose
    predictions file is missing (with PRESENT: is there), filtered by exit
    depth and by ONLY, a dict column -> set of values."""
    try:
        with open(sweep_path, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as error:
        fail(f"{sweep_path}: {error.strerror}")
    if not rows or "command" not in rows[0]:
        fail(f"{sweep_path}: line 1: no command column (not a seqrep sweep CSV)")
    for column in only:
        if column not in rows[0]:
            fail(f"--only {column}=...: {sweep_path} has no column {column}")
    deepest = max(int(row["exit"]) for row in rows)
    plan = []
    for number, row in enumerate(rows, start=2):
        words = shlex.split(row["command"])
        if words[:1] != ["seqrep"] or "--predictions" not in words:
            fail(f"{sweep_path}: line {number}: the command is not a seqrep run with --predictions")
        if any(row[column] not in values for column, values in only.items()):
            continue
        full_depth = int(row["exit"]) == deepest
        if layers_wanted == "full" and not full_depth or layers_wanted == "early" and full_depth:
            continue
        if os.path.exists(option(words, "--predictions")) == present:
            plan.append((row, words[1:]))
    return plan


def replay(seqrep, row, argv):
    """Run one command again; return (row, per-run csv path, seconds, error)."""
    start = time.monotonic()
    done = subprocess.run([seqrep] + argv, capture_output=True, text=True)
    seconds = time.monotonic() - start
    out = option(argv, "--out")
    if done.returncode != 0:
        return row, out, seconds, done.stderr.strip().splitlines()[-1:] or ["exit status %d" % done.returncode]
    return row, out, seconds, None


def jobs_for(plan):
    """How many of PLAN's commands fit the cores at once: cores over the
    largest --threads (a command without it, or with 0, takes every core)."""
    cores = os.cpu_count() or 1
    widest = max(int(option(argv, "--threads") or 0) or cores for row, argv in plan)
    return max(1, cores // widest)


def replayed_row(out):
    """The dev and test F1 of the per-run CSV OUT (a row per split, the
    last of each split counting) as a dict like a sweep row's: dev_f1, test_f1."""
    with open(out, newline="") as handle:
        return {row["split"] + "_f1": row["f1"] for row in csv.DictReader(handle)}


def same_f1(row, again):
    """Whether AGAIN (replayed_row's dict) has the sweep ROW's dev and test F1."""
    return all(abs(float(again[key]) - float(row[key])) < 5e-5 for key in ("dev_f1", "test_f1"))


def this_cpu():
    """(model name, widest vectors) of this machine's CPU, from /proc/cpuinfo."""
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return "unknown", "unknown"
    name = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("model name")), "unknown")
    flags = set(text.split())
    return name.replace(",", ""), "avx512" if "avx512f" in flags else "avx2" if "avx2" in flags else "other"


def record(path, sweep, rows):
    """Write to PATH (through a temporary file) one line per (row, argv) of
    ROWS, whose per-run CSVs are here: committed against replayed F1."""
    cpu, isa = this_cpu()
    today = time.strftime("%Y-%m-%d", time.gmtime())
    temporary = f"{path}.tmp.{os.getpid()}"
    with open(temporary, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sweep", "method", "r", "positions", "exit", "seed", "threads", "committed_dev_f1",
                         "replay_dev_f1", "committed_test_f1", "replay_test_f1", "same", "date", "cpu", "isa"])
        for row, argv in rows:
            again = replayed_row(option(argv, "--out"))
            writer.writerow([sweep, row["method"], row["r"], row["positions"], row["exit"], row["seed"],
                             option(argv, "--threads") or "all", row["dev_f1"], again["dev_f1"], row["test_f1"],
                             again["test_f1"], "yes" if same_f1(row, again) else "no", today, cpu, isa])
    os.replace(temporary, path)


def main():
    """Parse options, replay the missing runs JOBS at a time, report."""
    parser = argparse.ArgumentParser(description="replay the runs of a sweep CSV whose per-run files are missing")
    parser.add_argument("seqrep")
    parser.add_argument("sweep")
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--missing", action="store_true")
    parser.add_argument("--record", metavar="OUT.csv")
    parser.add_argument("--exit", choices=("full", "early", "all"), default="all")
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args()
    if not os.path.isfile(args.seqrep) or not os.access(args.seqrep, os.X_OK):
        fail(f"{args.seqrep}: not an executable seqrep (give BUILD/seqrep; run make)")
    if args.jobs < 0:
        fail(f"--jobs {args.jobs}: give 1 or more (0: as many as the cores fit)")
    only = {}
    for term in args.only:
        column, equals, values = term.partition("=")
        if not equals or not column or not values:
            fail(f"--only {term}: give COLUMN=V1,V2")
        only[column] = set(values.split(","))
    plan = planned(args.sweep, args.exit, only)
    if args.missing:
        print(f"house_replay: {args.sweep}: {len(plan)} runs without their per-run files")
        sys.exit(1 if plan else 0)
    if not plan:
        print(f"house_replay: {args.sweep}: every run has its per-run files; nothing to replay")
        if args.record:
            record(args.record, args.sweep, planned(args.sweep, args.exit, only, present=True))
        return
    args.jobs = args.jobs or jobs_for(plan)
    print(f"house_replay: {len(plan)} runs of {args.sweep} to replay, {args.jobs} at a time", flush=True)
    for row, argv in plan:
        os.makedirs(os.path.dirname(option(argv, "--out")) or ".", exist_ok=True)
    differing = 0
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(replay, args.seqrep, row, argv) for row, argv in plan]
        for done_count, future in enumerate(concurrent.futures.as_completed(futures), start=1):
            row, out, seconds, error = future.result()
            name = os.path.basename(out)
            if error:
                differing += 1
                verdict = "FAILED: " + " ".join(error)
            elif same_f1(row, replayed_row(out)):
                verdict = "same F1"
            else:
                differing += 1
                verdict = "DIFFERENT F1 from the committed row"
            elapsed = time.monotonic() - start
            eta = elapsed / done_count * (len(plan) - done_count)
            print(f"[{done_count}/{len(plan)}] {name}: {verdict} ({seconds:.0f} s; ETA {eta / 60:.0f} min)", flush=True)
    if args.record:
        record(args.record, args.sweep, planned(args.sweep, args.exit, only, present=True))
    if differing:
        print(f"house_replay: {differing} of {len(plan)} replays did not give the committed F1", file=sys.stderr)
        sys.exit(1)
    print(f"house_replay: all {len(plan)} replays gave the committed dev and test F1")


if __name__ == "__main__":
    main()
