#!/bin/sh
# sweep_slurm.sh — submit a `seqrep sweep` grid to Slurm as a job array, one
# task per run, and a job that merges the run files when every task has
# succeeded (`sbatch --dependency=afterok:ARRAY`, then `seqrep collect`).
#
# Usage: sh examples/sweep_slurm.sh OUT.csv [--] SWEEP-OPTIONS...
#   e.g. SEQREP_PARTITION=cpu SEQREP_TIME=1:00:00 SEQREP_CPUS=4 \
#        sh examples/sweep_slurm.sh runs/sweep.csv -- --data data/right-cue \
#            --model lm.safetensors --methods causal,sr --r 1,2 --seeds 5,29,42
#
# SWEEP-OPTIONS are those of `seqrep sweep` except --out, --jobs, --plan and
# --stop-after. `seqrep sweep ... --plan` writes one `seqrep finetune` command
# per run still to do into OUT.plan (OUT without .csv, plus .plan); task I of
# the array runs line I of it (`sed -n Ip`), writing RUN.csv and
# RUN.manifest.json into the runs directory (OUT without .csv, plus .runs, or
# --runs-dir) and its output into slurm-ARRAY_I.log there. The collect job
# writes OUT.csv and OUT.md (or --summary), its output in OUT.collect.log.
# The script submits and returns, printing both job ids; the sweep CSV is
# there when the collect job has finished (squeue -j ARRAY,COLLECT).
#
# The runs read and write the paths of the plan relative to this directory,
# so every node must see it (a shared file system) and seqrep at the same
# absolute path. If a task fails, the collect job never starts (it stays
# pending with reason DependencyNeverSatisfied unless the cluster cancels
# such jobs): scancel it, mend the cause (see the task's log), and run this
# script again with the same options; it submits only the missing runs.
#
# Environment (all optional):
#   SEQREP            the seqrep binary (default build/seqrep, else seqrep on the PATH)
#   SEQREP_PARTITION  sbatch --partition of every job (default: the cluster's)
#   SEQREP_TIME       sbatch --time of one run, e.g. 30:00 (default: the partition's)
#   SEQREP_CPUS       cores of one run: sbatch --cpus-per-task, and --threads
#                     of each run unless SWEEP-OPTIONS give --threads (default 1)
#   SEQREP_MEM        sbatch --mem of one run, e.g. 2G (default: the cluster's)
#   SEQREP_ARRAY_MAX  at most this many runs at once (--array=1-N%MAX)
#   SEQREP_SBATCH     further sbatch options for both jobs, split at spaces
#                     (e.g. "--account=lab --qos=short")
# Exit status: 0 when both jobs were submitted (or nothing was left to run and
# the collect ran here); otherwise non-zero after one line on stderr.
set -eu
me=sweep_slurm.sh
die() { echo "$me: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: sh examples/sweep_slurm.sh OUT.csv [--] SWEEP-OPTIONS..."
out=$1
shift
[ "${1:-}" = "--" ] && shift

. "$(dirname "$0")/sweep_farm.sh"
farm_seqrep
seqrep=$(cd "$(dirname "$seqrep")" && pwd)/$(basename "$seqrep")
cpus=${SEQREP_CPUS:-1}
case $cpus in '' | *[!0-9]* | 0) die "SEQREP_CPUS must be a whole number >= 1 (got '$cpus')" ;; esac

base=${out%.csv}
farm_scan "$out" "$@"
threads=--threads=$cpus
[ "$threads_given" = 1 ] && threads=

command -v sbatch >/dev/null 2>&1 || die "sbatch not found (Debian: apt-get install slurm-client)"

plan=$base.plan
job=$base.job.sh
mkdir -p "$(dirname "$out")"
"$seqrep" sweep "$@" $threads --out "$out" --plan >"$plan" || exit $?
n=$(wc -l <"$plan")
if [ "$n" = 0 ]; then
    echo "$me: no run left to do; collecting here"
    exec "$seqrep" collect "$out" "$runs" --out "$out" --summary "$summary"
fi

# the job script of both jobs: "run PLAN" runs line SLURM_ARRAY_TASK_ID of
# PLAN; "collect SEQREP OUT RUNS SUMMARY" merges the runs into OUT
cat >"$job" <<'EOF'
#!/bin/sh
# written by examples/sweep_slurm.sh
set -eu
case $1 in
    run)
        line=$(sed -n "${SLURM_ARRAY_TASK_ID}p" "$2")
        [ -n "$line" ] || { echo "no line $SLURM_ARRAY_TASK_ID in $2" >&2; exit 2; }
        exec sh -c "$line" ;;
    collect)
        exec "$2" collect "$3" "$4" --out "$3" --summary "$5" ;;
esac
EOF

here=$(pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$here/$1" ;; esac; }
err=$base.sbatch.err

# sbatch --parsable prints "JOBID" or "JOBID;CLUSTER"; SEQREP_SBATCH is split at spaces
# shellcheck disable=SC2086
array=$(sbatch --parsable --chdir="$here" ${SEQREP_PARTITION:+"--partition=$SEQREP_PARTITION"} \
    ${SEQREP_SBATCH:-} --job-name=seqrep-sweep --cpus-per-task="$cpus" \
    ${SEQREP_TIME:+"--time=$SEQREP_TIME"} ${SEQREP_MEM:+"--mem=$SEQREP_MEM"} \
    --array="1-$n${SEQREP_ARRAY_MAX:+%$SEQREP_ARRAY_MAX}" --output="$(abs "$runs")/slurm-%A_%a.log" \
    "$job" run "$(abs "$plan")" 2>"$err") ||
    die "sbatch refused the array job: $(tail -n 1 "$err")"
array=${array%%;*}
# shellcheck disable=SC2086
collect=$(sbatch --parsable --chdir="$here" ${SEQREP_PARTITION:+"--partition=$SEQREP_PARTITION"} \
    ${SEQREP_SBATCH:-} --job-name=seqrep-collect --dependency="afterok:$array" \
    --output="$(abs "$base").collect.log" \
    "$job" collect "$seqrep" "$(abs "$out")" "$(abs "$runs")" "$(abs "$summary")" 2>"$err") ||
    die "sbatch refused the collect job (array job $array is queued): $(tail -n 1 "$err")"
collect=${collect%%;*}
rm -f "$err"
echo "$me: submitted array job $array ($n runs) and collect job $collect (afterok:$array); $out when it ends (squeue -j $array,$collect)"
