#!/bin/sh
# run.sh — run the unit test binaries, JOBS at a time, each from tests/ (so
# golden/... paths resolve; every test works in its own temporary folder).
# Usage: sh tests/unit/run.sh JOBS BINARY...
# UNIT_RUNNER, when set, is the command each binary runs under (make
# test-arm64: qemu-aarch64 for binaries of another CPU family).
# The largest binaries start first (they are the viz/ tests, which run
# longest, so the others fill the second core beside them). Each test's
# output is printed whole when it ends, with its seconds; then the failed
# tests are named and the exit status is 1 if there were any.
set -u
# OpenMP's threads sleep when they wait: two tests of two threads each on
# two cores took 11.5 s so, 15.9 s spinning (and one at a time 14.3 s)
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY
jobs=$1
shift
root=$(pwd)
logs=$(mktemp -d "${TMPDIR:-/tmp}/seqrep-unit.XXXXXX")
trap 'rm -rf "$logs"' EXIT
for t in "$@"; do
    printf '%s %s\n' "$(wc -c <"$t")" "$t"
done | sort -rn | cut -d' ' -f2 | xargs -P "$jobs" -I{} sh -c '
    name=$(echo "$1" | tr / _); start=$(date +%s)
    (cd tests && ${UNIT_RUNNER:-} "$2/$1") >"$3/$name.txt" 2>&1 </dev/null || echo "$1" >"$3/$name.failed"
    secs=$(($(date +%s) - start))
    {
        flock 9
        echo "== $1 ($secs s)"
        cat "$3/$name.txt"
    } 9>"$3/lock"' _ {} "$root" "$logs"
failed=$(cat "$logs"/*.failed 2>/dev/null)
if [ -n "$failed" ]; then
    echo "unit tests failed:"
    echo "$failed" | sed 's/^/    /'
    exit 1
fi
echo "unit tests: $# passed"
