#!/bin/sh
# sweep_parallel.sh — run a `seqrep sweep` grid with GNU parallel, JOBS runs at
# a time, then merge the run files into one sweep CSV with `seqrep collect`.
#
# Usage: sh examples/sweep_parallel.sh JOBS OUT.csv [--] SWEEP-OPTIONS...
#   e.g. sh examples/sweep_parallel.sh 8 runs/sweep.csv -- --data data/right-cue \
#            --model lm.safetensors --methods causal,sr --r 1,2 --seeds 5,29,42
#
# SWEEP-OPTIONS are those of `seqrep sweep` except --out, --jobs, --plan and
# --stop-after, which this script sets. `seqrep sweep ... --jobs JOBS --plan`
# prints one `seqrep finetune` command per run still to do; each gets
# --threads cores/JOBS unless SWEEP-OPTIONS give --threads (then keep
# JOBS x threads <= cores yourself). GNU parallel runs them with
# --halt soon,fail=1 (after a failure it starts no new run and lets the
# running ones finish); each run writes RUN.csv and RUN.manifest.json into the
# runs directory (OUT without .csv, plus .runs, or --runs-dir) and its output
# into RUN.log there. The plan is OUT.plan and the joblog (one line per run:
# start, duration, exit status, command) OUT.joblog. At the end
# `seqrep collect OUT.csv RUNS_DIR --out OUT.csv --summary OUT.md` (or
# --summary) writes the sweep CSV and its summary, as `seqrep sweep` would.
#
# Started again with the same options it runs only what is missing: the plan
# skips every run whose files are in the runs directory or whose row is in OUT.
#
# Environment: SEQREP, the seqrep binary (default build/seqrep, else seqrep on
# the PATH). Needs GNU parallel (Debian: apt-get install parallel).
# Exit status: 0 when every run finished and was collected; otherwise non-zero
# after one line on stderr naming what failed.
set -eu
me=sweep_parallel.sh
die() { echo "$me: $*" >&2; exit 2; }

[ $# -ge 2 ] || die "usage: sh examples/sweep_parallel.sh JOBS OUT.csv [--] SWEEP-OPTIONS..."
jobs=$1
out=$2
shift 2
[ "${1:-}" = "--" ] && shift
case $jobs in '' | *[!0-9]* | 0) die "JOBS must be a whole number >= 1 (got '$jobs')" ;; esac

. "$(dirname "$0")/sweep_farm.sh"
farm_seqrep
base=${out%.csv}
farm_scan "$out" "$@"

parallel --version 2>/dev/null | grep -q "GNU parallel" || die "GNU parallel not found (Debian: apt-get install parallel)"

plan=$base.plan
joblog=$base.joblog
mkdir -p "$(dirname "$out")"
"$seqrep" sweep "$@" --out "$out" --jobs "$jobs" --plan >"$plan" || exit $?
total=$(wc -l <"$plan")

# one job per plan line: "LOG<tab>COMMAND", LOG being RUN.log beside RUN.csv
awk -v runs="$runs" 'BEGIN { OFS = "\t" }
{
    name = runs "/run" NR ".log"
    if (match($0, / --out [^ ]+\.csv/)) name = substr($0, RSTART + 7, RLENGTH - 11) ".log"
    print name, $0
}' "$plan" >"$plan.jobs"
rm -f "$joblog"
status=0
parallel --will-cite --jobs "$jobs" --halt soon,fail=1 --joblog "$joblog" --colsep '\t' \
    'sh -c {2} >{1} 2>&1' <"$plan.jobs" || status=$?
if [ "$status" != 0 ]; then
    # the first run the joblog shows failed: Seq, Exitval and Signal columns
    failed=$(awk -F'\t' 'NR > 1 && ($7 != 0 || $8 != 0) { print $1, $7, $8; exit }' "$joblog")
    if [ -z "$failed" ]; then
        echo "$me: GNU parallel stopped with status $status after $(($(wc -l <"$joblog") - 1)) of $total runs (joblog $joblog)" >&2
        exit 1
    fi
    set -- $failed
    log=$(sed -n "$1p" "$plan.jobs" | cut -f1)
    why="exit $2"
    [ "$3" != 0 ] && why="signal $3"
    last=$(tail -n 1 "$log" 2>/dev/null || true)
    echo "$me: run $1 of $total failed ($why; log $log)${last:+: $last}" >&2
    exit 1
fi
rm -f "$plan.jobs"
# OUT too: rows it had before (from another machine, say) stay
"$seqrep" collect "$out" "$runs" --out "$out" --summary "$summary" || exit $?
