"""isa_mix.py - which vector width a command's time is spent in, measured.

Samples the command with `perf record -e cpu-clock` (a software clock: it
works under KVM, where the hardware counters are not exposed), then annotates
every symbol that holds at least --min-share of the samples and sorts each
sampled instruction by the widest register it names: zmm (512-bit), ymm
(256-bit), a packed xmm operation (128-bit), or scalar and other. Prints the
shares over the annotated samples, overall, for the FMAs alone, and for the
top symbols. The benchmark's own peak loops (fma_chains_*) are left out.

Usage: /usr/bin/python3 tests/bench/isa_mix.py [--min-share P] -- COMMAND ARGS...
Needs perf (Debian linux-perf). Only the standard library is used.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^\s*([0-9.]+)\s*:\s*[0-9a-f]+:\s+(\S+)\s*(.*)$")


def width_of(mnemonic, operands):
    """The vector width in bits an instruction works on (0: scalar or other)."""
    if "zmm" in operands:
        return 512
    if "ymm" in operands:
        return 256
    if "xmm" in operands and re.search(r"p[sdh]$|^vp|^p", mnemonic) and not re.search(r"s[sdh]$", mnemonic):
        return 128
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-share", type=float, default=0.5, help="percent of samples a symbol needs")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command")
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        rc = subprocess.call(["perf", "record", "-q", "-e", "cpu-clock", "-o", data, "--"] + command,
                             stdout=subprocess.DEVNULL)
        if rc != 0:
            sys.exit("isa_mix: the command or perf failed (exit status %d)" % rc)
        report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "dso,sym"],
                                capture_output=True, text=True).stdout
        symbols, peak_loops = [], 0.0
        for line in report.splitlines():
            m = re.match(r"^\s*([0-9.]+)%\s+(\S+)\s+\[\.\]\s+(.+?)\s*$", line)
            if m and m.group(3).startswith("fma_chains"):
                peak_loops += float(m.group(1))
            elif m and float(m.group(1)) >= args.min_share:
                symbols.append((float(m.group(1)), m.group(2), m.group(3)))
        total = collections.Counter()
        fma = collections.Counter()
        rows = []
        for share, dso, sym in symbols:
            out = subprocess.run(["perf", "annotate", "-i", data, "--stdio", "-d", dso, "-s", sym],
                                 capture_output=True, text=True).stdout
            mix = collections.Counter()
            for line in out.splitlines():
                m = LINE.match(line)
                if not m:
                    continue
                pct, mnemonic, operands = float(m.group(1)), m.group(2), m.group(3)
                w = width_of(mnemonic, operands)
                weight = share * pct / 100.0
                mix[w] += weight
                if "fmadd" in mnemonic or "fmsub" in mnemonic:
                    fma[w] += weight
            total.update(mix)
            rows.append((share, dso, sym, mix))
    covered = sum(total.values())
    print("command: %s" % " ".join(command))
    print("annotated: %.1f%% of the samples outside the benchmark's own peak loops, which took %.1f%%"
          " (%d symbols of at least %.1f%% each)"
          % (100.0 * covered / max(100.0 - peak_loops, 1e-9), peak_loops, len(rows), args.min_share))

    def shares(counter):
        s = sum(counter.values()) or 1.0
        return "  ".join("%s %5.1f%%" % (name, 100.0 * counter[w] / s)
                         for w, name in ((512, "zmm"), (256, "ymm"), (128, "xmm"), (0, "scalar/other")))

    print("all instructions: " + shares(total))
    print("FMA instructions: " + shares(fma))
    print("\n%7s  %-28s %-40s %s" % ("share", "object", "symbol", "width mix"))
    for share, dso, sym, mix in rows:
        print("%6.1f%%  %-28s %-40s %s" % (share, dso[-28:], sym[:40], shares(mix)))


if __name__ == "__main__":
    main()
