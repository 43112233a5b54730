#!/bin/sh
# examples/record_output.sh NAME COMMAND [ARGS...] — run a measuring command
# (build/bench, tests/bench/isa_mix.py) and keep what it printed for
# docs/performance.md: results/bench/NAME.txt (the command, then its output
# as printed) and results/md/NAME.md (the same as a code block: the block
# the page holds between its BEGIN/END:NAME markers, which
# tests/checks/check_docs_tables.py checks). As root it runs the command in a
# scheduling group of its own (a new session) raised to the top priority, so
# that other work on the machine yields the CPUs while it runs
# (docs/performance.md, "Noise"). OPENBLAS_CORETYPE is passed on as it is
# and recorded; unset it (env -u OPENBLAS_CORETYPE) for OpenBLAS's own kernel
# choice.
#
#   sh examples/record_output.sh bench-own build/bench
#   sh examples/record_output.sh isa-mix-own /usr/bin/python3 tests/bench/isa_mix.py -- build/bench --only train --config base --no-torch --reps 10
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: examples/record_output.sh NAME COMMAND [ARGS...]" >&2; exit 2; }
name=$1
shift
mkdir -p results/bench results/md
out=results/bench/$name.txt
tmp=$out.tmp
coretype=${OPENBLAS_CORETYPE-}
echo "\$ ${coretype:+OPENBLAS_CORETYPE=$coretype }$*" > "$tmp"
if [ "$(id -u)" = 0 ] && [ -w /proc/self/autogroup ]; then
    setsid -w sh -c 'echo -20 > /proc/self/autogroup; exec nice -n -20 "$@"' sh "$@" >> "$tmp" || { rm -f "$tmp"; exit 1; }
else
    "$@" >> "$tmp" || { rm -f "$tmp"; exit 1; }
fi
mv "$tmp" "$out"
{ echo '```'; cat "$out"; echo '```'; } > "results/md/$name.md.tmp"
mv "results/md/$name.md.tmp" "results/md/$name.md"
echo "wrote $out and results/md/$name.md"
