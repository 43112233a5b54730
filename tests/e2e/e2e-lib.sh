# e2e-lib.sh — the helpers every tests/e2e/e2e_*.sh suite sources: count and
# print passes and failures, and run a command expecting an exit status.
# A suite starts with e2e_begin "$@" and ends with: echo "$passed passed, $failed failed"

# e2e_begin SEQREP: check the one argument (an executable), set seqrep (its
# absolute path), here (the tests folder, one above the suite's own) and work (a new temporary folder,
# removed on exit), enter work, and zero the counters.
e2e_begin() {
    if [ $# -ne 1 ] || [ ! -x "$1" ]; then
        echo "usage: sh $0 path/to/seqrep (an executable; got '${1:-}')" >&2
        echo "0 passed, 1 failed"
        exit 2
    fi
    seqrep=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    here=$(cd "$(dirname "$0")/.." && pwd)
    work=$(mktemp -d)
    # python3 is Debian's own (the one make deps-test gives its packages)
    # for this suite and everything it runs, not one earlier on PATH: a
    # pyenv shim costs about 0.4 s a call, a third of a suite's time
    pybin=$(mktemp -d)
    trap 'rm -rf "$work" "$pybin"' EXIT
    if [ -x /usr/bin/python3 ]; then
        ln -s /usr/bin/python3 "$pybin/python3"
        PATH=$pybin:$PATH
        export PATH
    fi
    cd "$work" || exit 2
    passed=0
    failed=0
}

ok()   { passed=$((passed + 1)); echo "ok   $1"; }
bad()  { failed=$((failed + 1)); echo "FAIL $1"; }

# expect_ok NAME CMD...: exit 0, output in out.txt, errors in err.txt
expect_ok() {
    name=$1; shift
    if "$@" >out.txt 2>err.txt; then ok "$name"; else bad "$name (exit $?)"; cat err.txt; fi
}

# expect_status CODE NAME CMD...: run CMD, check its exit status
expect_status() {
    code=$1; name=$2; shift 2
    "$@" >out.txt 2>err.txt
    got=$?
    if [ "$got" = "$code" ]; then ok "$name"; else bad "$name (exit $got, wanted $code)"; cat err.txt; fi
}

# expect_error NAME PATTERN CMD...: exit 2 with exactly one stderr line matching PATTERN
expect_error() {
    name=$1; pattern=$2; shift 2
    "$@" >out.txt 2>err.txt
    got=$?
    lines=$(wc -l <err.txt)
    if [ "$got" = 2 ] && [ "$lines" = 1 ] && grep -q -- "$pattern" err.txt; then
        ok "$name"
    else
        bad "$name (exit $got, $lines stderr lines, wanted 2 and 1 line matching '$pattern')"
        cat err.txt
    fi
}

# ignore_fontconfig_leaks: under AddressSanitizer, fontconfig (beneath
# cairo's text) keeps its caches to the end when a command stops before it
# frees them (seqrep plot and explore free them as they end:
# figure_fonts_release); that is not a leak of ours. Writes lsan.supp into
# the current (work) directory.
ignore_fontconfig_leaks() {
    printf 'leak:libfontconfig.so\n' >lsan.supp
    LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$PWD/lsan.supp:print_suppressions=0"
    export LSAN_OPTIONS
}

# check NAME CMD...: a condition
check() {
    name=$1; shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}

# same_tensors A B: the two safetensors files hold the same tensors, byte for byte
same_tensors() {
    python3 - "$1" "$2" <<'PY'
import json, struct, sys
def tensors(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    h.pop("__metadata__", None)
    return {k: b[8 + n + v["data_offsets"][0]: 8 + n + v["data_offsets"][1]] for k, v in h.items()}
a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
sys.exit(0 if a == b and len(a) > 0 else 1)
PY
}

# fault_library: set preload to the LD_PRELOAD list of the fault library
# tests/fault/fault_inject.c (BUILD/tests/fault_inject.so beside BUILD/seqrep;
# after AddressSanitizer's runtime, which must come first, in an ASan
# build); when it is missing, count a failure and end the suite.
fault_library() {
    shim=$(dirname "$seqrep")/tests/fault_inject.so
    if [ ! -f "$shim" ]; then
        bad "the fault library $shim is missing (make $(basename "$(dirname "$seqrep")")/tests/fault_inject.so)"
        echo "$passed passed, $failed failed"
        exit 1
    fi
    preload=$shim
    asan=$(ldd "$seqrep" 2>/dev/null | awk '/libasan/ { print $3 }')
    [ -n "$asan" ] && preload="$asan $shim"
}

# meta FILE KEY: a metadata string of a safetensors file ("" when absent)
meta() {
    python3 - "$1" "$2" <<'PY'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", b[:8])[0]
print(json.loads(b[8:8 + n])["__metadata__"].get(sys.argv[2], ""))
PY
}
