#!/bin/sh
# e2e_farm.sh — `seqrep sweep --plan` handed to existing engines: the same
# small grid (1 dataset, causal and sr r = 1, 2 seeds, 1 epoch: 4 runs) run
# by examples/sweep_parallel.sh (GNU parallel, 2 jobs) and by
# examples/sweep_slurm.sh (a job array and a dependent collect job, on a
# one-node Slurm cluster started here in a temporary folder) must give the
# same rows as the serial `seqrep sweep`: the same runs, none lost or twice,
# with the same scores (timings and the command's --out path aside).
# A part whose tools are missing (GNU parallel: make deps-test; Slurm and
# munge: make deps-slurm) or whose daemons this machine refuses to run prints
# "skip ...: reason" and passes.
# Usage: sh tests/e2e/e2e_farm.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
root=$(cd "$here/.." && pwd)
cluster=$work/cluster
ctld_pid= slurmd_pid= munged_pid=

# stop_cluster: stop the daemons this test started (slurmctld, slurmd, munged)
stop_cluster() {
    [ -n "$ctld_pid$slurmd_pid$munged_pid" ] || return 0
    if [ -n "$ctld_pid" ]; then scontrol shutdown >/dev/null 2>&1; fi
    for pid in $ctld_pid $slurmd_pid; do
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill "$pid" 2>/dev/null
    done
    [ -n "$munged_pid" ] && kill "$munged_pid" 2>/dev/null
    for pid in $ctld_pid $slurmd_pid $munged_pid; do wait "$pid" 2>/dev/null; done
    ctld_pid= slurmd_pid= munged_pid=
}

trap 'stop_cluster; rm -rf "$work" "$pybin"' EXIT
trap 'exit 130' INT TERM

# runs CSV: every row without the timings (seconds, ms_per_sentence) and the
# command (it names the run's --out path), sorted
runs() {
    awk -F, 'NR == 1 { n = NF; for (i = 1; i <= NF; i++) {
                           if ($i == "command" && i - 1 < n) n = i - 1
                           skip[i] = ($i == "seconds" || $i == "ms_per_sentence") }
                       next }
             { line = ""; for (i = 1; i <= n; i++) if (!skip[i]) line = line $i ","; print line }' "$1" | sort
}

# same_runs NAME CSV: CSV holds the serial sweep's 4 runs, each once, with its scores
same_runs() {
    if [ -f "$2" ] && [ "$(runs "$2")" = "$(runs serial/sweep.csv)" ] &&
       [ "$(runs "$2" | cut -d, -f1-6 | uniq | wc -l)" = 4 ] && [ "$(($(wc -l <"$2") - 1))" = 4 ]; then
        ok "$1"
    else
        bad "$1"; diff serial/sweep.csv "$2"
    fi
}

now() { date +%s; }

# ---- a small task, a tiny model, the serial sweep ----
"$seqrep" gen right-cue --out-dir data/tiny-rc --seed 3 --train 40 --dev 16 --test 16 --corpus 300 2>/dev/null
"$seqrep" train-lm --corpus data/tiny-rc/corpus.txt --out lm.safetensors --layers 2 --d-model 16 \
    --heads 2 --d-ff 32 --seq-len 48 --batch 4 --steps 15 --threads 1 --quiet >/dev/null 2>&1
cells="--data data/tiny-rc --model lm.safetensors --methods causal,sr --r 1 --seeds 1,2 --epochs 1"
grid="$cells --threads 1"
expect_status 0 "serial sweep" "$seqrep" sweep $grid --out serial/sweep.csv
if [ "$(runs serial/sweep.csv | wc -l)" = 4 ] && head -n 1 serial/sweep.csv | grep -q ",test_f1," &&
   [ "$(runs serial/sweep.csv | cut -d, -f12 | sort -u | wc -l)" -ge 2 ]; then
    ok "serial sweep: 4 runs, not all with the same test F1"
else
    bad "serial sweep rows"; cat serial/sweep.csv
fi

# a seqrep whose plan gives run 2 an unknown option: that run fails
cat >bad-seqrep <<EOF
#!/bin/sh
if [ "\$1" = sweep ]; then "$seqrep" "\$@" | sed '2s/ --quiet\$/ --no-such-option --quiet/'; else exec "$seqrep" "\$@"; fi
EOF
chmod +x bad-seqrep

# ---- GNU parallel ----
par() { SEQREP=$seqrep sh "$root/examples/sweep_parallel.sh" "$@"; }
expect_status 2 "sweep_parallel.sh: JOBS 0 refused" par 0 x.csv -- $grid
expect_status 2 "sweep_parallel.sh: --jobs in the sweep options refused" par 2 x.csv -- $grid --jobs 3
if ! parallel --version 2>/dev/null | grep -q "GNU parallel"; then
    echo "skip GNU parallel part: GNU parallel is not installed (make deps-test installs it)"
else
    t0=$(now)
    expect_status 0 "sweep_parallel.sh, 2 jobs" par 2 par/sweep.csv -- $grid
    same_runs "parallel: the serial sweep's runs and scores" par/sweep.csv
    if [ "$(awk -F'\t' 'NR > 1 && $7 == 0 && $8 == 0' par/sweep.joblog | wc -l)" = 4 ] &&
       [ "$(ls par/sweep.runs/*.log | wc -l)" = 4 ] && grep -q "### tiny-rc" par/sweep.md &&
       grep -q "| lm | sr | 1 | 2 | 2 |" par/sweep.md; then
        ok "parallel: joblog of 4 runs, a log per run, summary"
    else
        bad "parallel: joblog, logs, summary"; cat par/sweep.joblog; ls par/sweep.runs; cat par/sweep.md
    fi
    cp par/sweep.csv par/first.csv
    expect_status 0 "sweep_parallel.sh again: nothing to run" par 2 par/sweep.csv -- $grid
    if [ ! -s par/sweep.plan ] && [ "$(runs par/sweep.csv)" = "$(runs par/first.csv)" ]; then
        ok "parallel again: empty plan, same rows"
    else
        bad "parallel again"; cat par/sweep.plan
    fi
    # a failed run
    SEQREP=$PWD/bad-seqrep sh "$root/examples/sweep_parallel.sh" 2 fail/sweep.csv -- $grid >out.txt 2>err.txt
    got=$?
    if [ "$got" = 1 ] && tail -n 1 err.txt | grep -q "^sweep_parallel.sh: run 2 of 4 failed (exit 2; log .*seed1.log): seqrep finetune: unknown option"; then
        ok "parallel: a failed run is one line naming it, its log and its error"
    else
        bad "parallel: failed run (exit $got)"; cat err.txt
    fi
    echo "     (GNU parallel part: $(($(now) - t0)) s)"
fi

# ---- Slurm: a one-node cluster in $work/cluster ----
# last_line FILE...: the last line of the first FILE with something in it
last_line() {
    for f in "$@"; do [ -s "$f" ] && { tail -n 1 "$f"; return; }; done
    echo "(no message)"
}

# start_cluster: munged, slurmctld and slurmd on this host; 0 when the node is
# idle, else 1 after setting why
start_cluster() {
    for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
        command -v $tool >/dev/null 2>&1 || { why="$tool is not installed (make deps-slurm installs Slurm and munge)"; return 1; }
    done
    [ "$(id -u)" = 0 ] || { why="slurmd must run as root to start jobs"; return 1; }
    mkdir -p "$cluster/munge" "$cluster/state" "$cluster/spool" "$cluster/log" || return 1
    chmod 700 "$cluster/munge"
    dd if=/dev/urandom of="$cluster/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$cluster/munge/munge.key"
    sock=$cluster/munge/munge.socket.2
    munged -F --force --key-file="$cluster/munge/munge.key" --socket="$sock" \
        --pid-file="$cluster/munge/munged.pid" --seed-file="$cluster/munge/munged.seed" \
        --log-file="$cluster/log/munged.log" >"$cluster/log/munged.out" 2>&1 &
    munged_pid=$!
    i=0
    while [ ! -S "$sock" ] && kill -0 $munged_pid 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    [ -S "$sock" ] || { why="munged did not start: $(last_line "$cluster/log/munged.out" "$cluster/log/munged.log")"; return 1; }
    # two free TCP ports for slurmctld and slurmd
    set -- $(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("", 0))
print(*[x.getsockname()[1] for x in s])')
    [ $# = 2 ] || { why="no free TCP ports"; return 1; }
    node=$(slurmd -C 2>/dev/null | head -n 1)
    case $node in NodeName=*) ;; *) why="slurmd -C does not describe this node"; return 1 ;; esac
    cat >"$cluster/slurm.conf" <<EOF
ClusterName=seqrep-e2e
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/log/slurmctld.log
SlurmdLogFile=$cluster/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$cluster/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=e2e Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    SLURM_CONF=$cluster/slurm.conf
    export SLURM_CONF
    slurmctld -D -c >"$cluster/log/slurmctld.out" 2>&1 &
    ctld_pid=$!
    slurmd -D >"$cluster/log/slurmd.out" 2>&1 &
    slurmd_pid=$!
    i=0
    while [ "$(sinfo -h -o %t 2>/dev/null)" != idle ] && [ $i -lt 150 ]; do
        kill -0 $ctld_pid 2>/dev/null || { why="slurmctld stopped: $(last_line "$cluster/log/slurmctld.log" "$cluster/log/slurmctld.out")"; return 1; }
        kill -0 $slurmd_pid 2>/dev/null || { why="slurmd stopped: $(last_line "$cluster/log/slurmd.log" "$cluster/log/slurmd.out")"; return 1; }
        sleep 0.2; i=$((i + 1))
    done
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] || { why="the node is not idle after 30 s: $(sinfo -h -o '%t %E' 2>&1)"; return 1; }
    return 0
}

# submit_and_wait SEQREP OUT: sweep_slurm.sh with SEQREP submits the grid
# into OUT (without --threads: SEQREP_CPUS, default 1, gives it); set array and collect (the job ids) and wait (at most 60 s) until
# both have left the queue, or the array has and the collect job waits for
# ever (reason DependencyNeverSatisfied: then set never=1 and cancel it).
# 0, or 1 after a failure.
submit_and_wait() {
    expect_status 0 "sweep_slurm.sh submits $2" env SEQREP="$1" sh "$root/examples/sweep_slurm.sh" "$2" -- $cells
    set -- $(sed -n 's/.*array job \([0-9]*\) (4 runs) and collect job \([0-9]*\) .*/\1 \2/p' out.txt)
    [ $# = 2 ] || { bad "sweep_slurm.sh output names the two jobs"; cat out.txt err.txt; return 1; }
    array=$1 collect=$2 never=0
    i=0
    while [ -n "$(queued)" ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
    if [ -n "$(queued)" ]; then
        bad "Slurm: jobs $array and $collect still running after 60 s"; squeue; scancel "$array" "$collect"
        return 1
    fi
    if [ -n "$(squeue -h -j "$collect" 2>/dev/null)" ]; then never=1; scancel "$collect"; fi
    ok "Slurm: array job $array done, collect job $collect $([ $never = 1 ] && echo "waits for ever" || echo done) ($(($(now) - t0)) s since the start)"
}

# queued: the jobs of array and collect in the queue, but a collect job that waits for ever
queued() {
    squeue -h -j "$array,$collect" -o "%i %r" 2>/dev/null | grep -v "^$collect DependencyNeverSatisfied\$"
}

t0=$(now)
why=
if ! start_cluster; then
    echo "skip Slurm part: $why"
    stop_cluster
else
    ok "Slurm: munged, slurmctld and slurmd up, node idle ($(($(now) - t0)) s)"
    expect_status 2 "sweep_slurm.sh: --plan in the sweep options refused" \
        env SEQREP="$seqrep" sh "$root/examples/sweep_slurm.sh" x.csv -- $grid --plan
    # a sweep through the array and the collect job: the serial sweep's rows
    if submit_and_wait "$seqrep" sl/sweep.csv; then
        [ $never = 0 ] || bad "Slurm: the collect job waits for ever"
        check "Slurm: SEQREP_CPUS 1 gives every run --threads 1" [ "$(grep -c -- " --threads 1 " sl/sweep.plan)" = 4 ]
        done_tasks=$(grep -c "JobState=COMPLETED .*ArrayJobId=$array " "$cluster/jobcomp.txt" 2>/dev/null)
        if [ "$done_tasks" = 4 ] && grep -q "^JobId=$collect .*JobState=COMPLETED" "$cluster/jobcomp.txt" &&
           [ "$(ls sl/sweep.runs/slurm-"$array"_*.log | wc -l)" = 4 ]; then
            ok "Slurm: 4 array tasks and the collect job completed, a log per task"
        else
            bad "Slurm: job states ($done_tasks tasks completed)"; cat "$cluster/jobcomp.txt" sl/sweep.collect.log
        fi
        same_runs "Slurm: the serial sweep's runs and scores" sl/sweep.csv
        if grep -q "| lm | sr | 1 | 2 | 2 |" sl/sweep.md; then ok "Slurm: summary"; else bad "Slurm: summary"; fi
    fi
    # a task that fails: the collect job never runs
    if submit_and_wait "$PWD/bad-seqrep" slf/sweep.csv; then
        if [ $never = 1 ] && grep -q "JobState=FAILED .*ArrayJobId=$array ArrayTaskId=2 " "$cluster/jobcomp.txt" &&
           ! grep -q "^JobId=$collect .*JobState=COMPLETED" "$cluster/jobcomp.txt" &&
           [ ! -e slf/sweep.collect.log ] && [ "$(wc -l <slf/sweep.csv)" = 1 ] &&
           grep -q "unknown option" slf/sweep.runs/slurm-"$array"_2.log; then
            ok "Slurm: a failed task (its error in its log) and no collect"
        else
            bad "Slurm: failed task"; cat "$cluster/jobcomp.txt"
        fi
    fi
    pids="$ctld_pid $slurmd_pid $munged_pid"
    stop_cluster
    alive=
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive="$alive $pid"; done
    if [ -z "$alive" ]; then ok "Slurm: daemons stopped"; else bad "Slurm: daemons still running:$alive"; fi
    echo "     (Slurm part: $(($(now) - t0)) s)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
