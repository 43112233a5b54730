#!/usr/bin/env python3
"""lab.py — run the course lab of docs/lab/README.md and check its numbers.

The student sheet is the script: every ```sh block under a step is run, in
order, and every "we saw" table (in the student or the instructor sheet)
names the committed file and column its number is read from. So the sheet
cannot rot: `make lab` runs every step, copies the files the tables read
from lab/ into results/lab/ (the one place it writes tracked files: the
numbers of the run, with the manifests that hold their seeds and settings)
and fails when a quoted number is no longer what the step produced (within
the tolerance the sheet states); `make test` runs the fast part (the steps
marked fast, and every number against the committed files, which needs no
run).

A sheet is markdown with these conventions:

    <!-- lab-setup -->            the next ```sh block runs before every step
    <!-- lab-step N fast|slow -->  starts step N; its ```sh blocks are its commands
    | what | read from | we saw | ± |   a "we saw" table; "read from" is
        `FILE` COLUMN (KEY=VALUE, ...) [mean|min|max|sd]
    over the rows of the CSV FILE that match every KEY=VALUE; one matching row,
    or an aggregate named at the end (sd: the sample standard deviation, n - 1,
    the ± of the tables); a FILE ending in .json gives the number
    under its top-level key COLUMN (a manifest's icl_score). FILE is a
    committed file under results/; results/lab/X is what the step's commands
    write as lab/X (they must name it: the step that quotes a number makes it).
    NUMBER<!-- src: `FILE` COLUMN (KEY=VALUE, ...) [mean|min|max|sd] -->
                                 a number in prose that quotes a result, in
    the sheets and in docs/results.md: the marker right after it names where
    it is read from, as above (FILE under results/, or the numbers of a
    committed figure, docs/results/NAME.csv); it must agree at the decimals it
    is quoted with (± 0). An interval [LO, HI] right after a marked number (on
    its line or the next) is read from the columns lo and hi of the same rows.
    In the sheets and docs/results.md (PROSE_DOCS) every decimal number of the prose (not in
    a ``` block, a table row or a BEGIN/END generated block) must be marked,
    or be one of these, which are no result of ours:
    NUMBER<!-- not a result: WHY -->   a setting, a licence version, a threshold
    NUMBER<!-- cited: WHO YEAR -->     a number quoted from a published paper
    head 2.3, heads 2.0, 2.1 and 2.2, controls 2.0 and 2.3   heads' names (LAYER.HEAD)
    else the check fails with "FILE:LINE: NUMBER quotes no source". Integers
    (years, step counts, seeds) are not checked.

Usage: python3 examples/lab.py [--build DIR] [--fast] [--step N[,N]] [--check-only]
                               [--figures DIR] [--record] [SHEET...]
  --build DIR    the seqrep build whose binary the steps run (default build)
  --fast         only the fast steps, and the numbers of committed files
  --step LIST    only these steps (their numbers are checked, the others not)
  --check-only   run nothing: check the numbers against the files there are
  --figures DIR  copy every lab/NAME.png the sheets show as figures/NAME.png into DIR, and
                 every lab/NAME.html they link as pages/NAME.html into DIR/../pages
  --record       write the measured numbers into the sheets' "we saw" column
                 (the tolerance column is kept), and the steps' times of
                 lab/timings.csv into results/lab/timings.csv and the table
                 results/md/lab-timings.md (docs/lab/instructor.md): for the
                 author of the sheet
Every run of steps writes their times to lab/timings.csv (one row a step; the
rows of steps not run are kept).
Exit status: 0 all checks pass, 1 a check or a step failed, 2 bad input.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time

STEP_MARK = re.compile(r"<!--\s*lab-step\s+(\d+)\s+(fast|slow)\s*-->")
SETUP_MARK = re.compile(r"<!--\s*lab-setup\s*-->")
FENCE = re.compile(r"^```(\S*)\s*$")
SOURCE = re.compile(r"^`([^`]+)`\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s+\(([^)]*)\))?(?:\s+(mean|min|max|sd))?$")
PROSE = re.compile(r"([+\-\u2212]?\d+(?:\.\d+)?)\s*%?\s*<!--\s*src:\s*(.*?)\s*-->")
PROSE_DOCS = ["docs/results.md"]
# where a prose marker may read from: the committed results, and the numbers of
# the committed figures (docs/results/NAME.csv, written from results/ by seqrep plot)
COMMITTED = ("results/", "docs/results/")
# a decimal number of prose (0.51, +7.65, −0.38, 3.7M): every one must be marked or
# exempted (unmarked_numbers)
DECIMAL = re.compile(r"(?<![\w.])[+\-\u2212]?\d+\.\d+(?:[KMG](?!\w))?(?!\w|\.\d)")
# an interval right after a marked number: checked against the columns lo and hi of its rows
INTERVAL = re.compile(r"[ \t]*\n?[ \t]*\[\s*([+\-\u2212]?\d+(?:\.\d+)?)\s*,\s*([+\-\u2212]?\d+(?:\.\d+)?)\s*\]")
# a number that is no result of ours: the marker right after it says why
EXEMPT = re.compile(r"[+\-\u2212]?\d+(?:\.\d+)?\s*[%\u00d7]?\s*<!--\s*(?:not a result|cited)\s*:[^>]*?-->")
# heads are named LAYER.HEAD: "head 2.3", "heads 2.0, 2.1 and 2.2", "controls 2.0, 2.1 and 2.3"
HEAD_NAMES = re.compile(r"\b(?:heads?|controls?)\s+\d+\.\d+(?:(?:,\s*|\s+and\s+)\d+\.\d+)*")
COMMENT = re.compile(r"<!--.*?-->", re.S)
FIGURE = re.compile(r"!\[[^\]]*\]\(figures/([A-Za-z0-9_.-]+\.png)\)")
# a page of `seqrep explore --html` a sheet links: [text](pages/NAME.html)
PAGE = re.compile(r"\]\(pages/([A-Za-z0-9_.-]+\.html)\)")
STEP_BUDGET_S = 300


def fail(msg):
    """Print a one-line error naming the file, line or option; exit 2."""
    print("lab: " + msg, file=sys.stderr)
    sys.exit(2)


class Check:
    """One quoted number: where it is read from, what the sheet says, the tolerance."""

    def __init__(self, sheet, line, step, what, path, column, where, agg, quoted, decimals, tol):
        self.sheet, self.line, self.step, self.what = sheet, line, step, what
        self.path, self.column, self.where, self.agg = path, column, where, agg
        self.quoted, self.decimals, self.tol = quoted, decimals, tol

    def agrees(self, value):
        """True when value, rounded as the sheet quotes it, is within the tolerance."""
        return abs(round(value, self.decimals) - self.quoted) <= self.tol + 1e-9

    def committed(self):
        """True when the number is read from a committed file (under results/)."""
        return self.path.startswith(COMMITTED)

    def produced_as(self):
        """The path the step's commands write the file as: lab/X for results/lab/X."""
        return self.path[len("results/"):] if self.path.startswith("results/lab/") else self.path


def parse_number(text, sheet, line):
    """A quoted number such as 97.3, +5.2 or 0.333; exit 2 if it is not one."""
    try:
        return float(text.replace("+", "").replace("±", "").strip())
    except ValueError:
        fail("%s:%d: '%s' is not a number" % (sheet, line, text.strip()))


def parse_filters(text, sheet, no):
    """{KEY: VALUE} of a source's "KEY=VALUE, ..." (exit 2 on a pair without =)."""
    where = {}
    for pair in (text or "").split(","):
        if pair.strip():
            if "=" not in pair:
                fail("%s:%d: filter '%s' is not KEY=VALUE" % (sheet, no, pair.strip()))
            k, v = pair.split("=", 1)
            where[k.strip()] = v.strip()
    return where


def prose_checks(path, lines, step_of_line):
    """The numbers of prose that carry a source marker (PROSE), as checks of
    tolerance 0, and the interval [LO, HI] written right after such a number
    (on the same line or the next), checked against the columns lo and hi of
    the marker's rows; step_of_line(no) is the lab step a line belongs to
    (None outside the lab)."""
    checks = []
    text = "\n".join(lines)
    for m in PROSE.finditer(text):
        no = text.count("\n", 0, m.start(1)) + 1
        src = SOURCE.match(m.group(2))
        if not src or not src.group(1).startswith(COMMITTED):
            fail("%s:%d: a src marker must name `results/FILE` (or `docs/results/FILE`) COLUMN (KEY=VALUE, ...) "
                 "[mean|min|max|sd], got '%s'" % (path, no, m.group(2)))
        quoted = [("prose: ", m.group(1), src.group(2), no)]
        iv = INTERVAL.match(text, m.end())
        if iv:
            at = text.count("\n", 0, iv.start(1)) + 1
            quoted += [("prose: interval lo ", iv.group(1), "lo", at), ("prose: interval hi ", iv.group(2), "hi", at)]
        for what, number, column, at in quoted:
            number = number.replace("\u2212", "-")
            decimals = len(number.split(".")[1]) if "." in number else 0
            checks.append(Check(path, at, step_of_line(at), what + number, src.group(1), column,
                                parse_filters(src.group(3), path, at), src.group(4),
                                parse_number(number, path, at), decimals, 0.0))
    return checks


def prose_lines(lines):
    """The line numbers of prose: not in a ``` block, a <!-- BEGIN:... -->
    ... <!-- END:... --> generated block or a table row."""
    keep, fence, block = set(), False, False
    for no, text in enumerate(lines, 1):
        if text.startswith("```"):
            fence = not fence
        elif "<!-- BEGIN:" in text:
            block = True
        elif "<!-- END:" in text:
            block = False
        elif not (fence or block or text.lstrip().startswith("|")):
            keep.add(no)
    return keep


def unmarked_numbers(path, lines):
    """The complaints "FILE:LINE: NUMBER ..." about every decimal number of
    the prose (prose_lines) that carries neither a source marker (PROSE) nor
    an exemption (EXEMPT), is not the interval right after a marked number,
    and is not a head's name (HEAD_NAMES)."""
    text = "\n".join(lines)
    covered = []
    for m in PROSE.finditer(text):
        covered.append((m.start(), m.end()))
        iv = INTERVAL.match(text, m.end())
        if iv:
            covered.append(iv.span())
    for pattern in (EXEMPT, HEAD_NAMES, COMMENT):
        covered += [m.span() for m in pattern.finditer(text)]
    prose = prose_lines(lines)
    complaints = []
    for m in DECIMAL.finditer(text):
        no = text.count("\n", 0, m.start()) + 1
        if no in prose and not any(a <= m.start() < b for a, b in covered):
            complaints.append("%s:%d: %s quotes no source (mark it <!-- src: ... -->, or exempt it <!-- not a "
                              "result: WHY --> / <!-- cited: WHO YEAR -->)" % (path, no, m.group(0)))
    return complaints


def parse_sheet(path):
    """Read a sheet: (setup commands, {step: (fast, [commands])}, [Check])."""
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    setup, steps, checks = [], {}, []
    step, want_setup, in_block, block, block_kind = None, False, False, [], ""
    header = None
    for no, text in enumerate(lines, 1):
        if in_block:
            if text.startswith("```"):
                in_block = False
                if block_kind == "sh":
                    if want_setup:
                        setup.append("\n".join(block))
                        want_setup = False
                    elif step is not None:
                        steps[step][1].append("\n".join(block))
            else:
                block.append(text)
            continue
        m = FENCE.match(text)
        if m:
            in_block, block, block_kind = True, [], m.group(1)
            continue
        if SETUP_MARK.search(text):
            want_setup = True
            continue
        m = STEP_MARK.search(text)
        if m:
            step = int(m.group(1))
            if step in steps:
                fail("%s:%d: step %d is marked twice" % (path, no, step))
            steps[step] = (m.group(2) == "fast", [])
            continue
        cells = [c.strip() for c in text.strip().strip("|").split("|")] if text.startswith("|") else None
        if cells and len(cells) == 4 and cells[1].lower() == "read from":
            header = no
            continue
        if cells is None:
            header = None
            continue
        if not header and len(cells) == 4 and SOURCE.match(cells[1]):
            fail("%s:%d: a 'we saw' row outside a table (no | what | read from | we saw | ± | header above it)"
                 % (path, no))
        if header and cells and set(cells[0]) <= set("-: "):
            continue
        if header and cells:
            if len(cells) != 4:
                fail("%s:%d: a 'we saw' row has %d cells, not 4" % (path, no, len(cells)))
            src = SOURCE.match(cells[1])
            if not src:
                fail("%s:%d: 'read from' must be `FILE` COLUMN (KEY=VALUE, ...) [mean|min|max], got '%s'"
                     % (path, no, cells[1]))
            if step is None:
                fail("%s:%d: a 'we saw' table before any <!-- lab-step N --> mark" % (path, no))
            if not src.group(1).startswith("results/"):
                fail("%s:%d: 'read from' names %s, which is not committed: name results/lab/... (make lab "
                     "copies the step's lab/... there) or another file under results/" % (path, no, src.group(1)))
            where = parse_filters(src.group(3), path, no)
            decimals = len(cells[2].split(".")[1]) if "." in cells[2] else 0
            checks.append(Check(path, no, step, cells[0], src.group(1), src.group(2), where, src.group(4),
                                parse_number(cells[2], path, no), decimals, parse_number(cells[3], path, no)))
    step_marks = [(no, int(m.group(1))) for no, t in enumerate(lines, 1) for m in [STEP_MARK.search(t)] if m]
    checks += prose_checks(path, lines, lambda n: max([s for at, s in step_marks if at <= n], default=None))
    return setup, steps, checks


def read_json_value(check):
    """The number a check reads from a JSON file's top-level key (a
    manifest's icl_score, say), or an error string."""
    try:
        with open(check.path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        return None, "%s: %s" % (check.path, e.strerror)
    except ValueError:
        return None, "%s: not JSON" % check.path
    if check.where or check.agg:
        return None, "%s: a JSON number takes no filter or mean/min/max" % check.path
    value = doc.get(check.column) if isinstance(doc, dict) else None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None, "%s has no number %s" % (check.path, check.column)
    return float(value), None


def read_value(check):
    """The number a check reads from its CSV (or JSON), or an error string."""
    if check.path.endswith(".json"):
        return read_json_value(check)
    try:
        with open(check.path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        return None, "%s: %s" % (check.path, e.strerror)
    if rows and check.column not in rows[0]:
        return None, "%s has no column %s" % (check.path, check.column)
    for key in check.where:
        if rows and key not in rows[0]:
            return None, "%s has no column %s" % (check.path, key)
    hits = [r for r in rows if all(r[k] == v for k, v in check.where.items())]
    if not hits:
        return None, "%s: no row with %s" % (check.path, check.where)
    try:
        values = [float(r[check.column]) for r in hits]
    except ValueError:
        return None, "%s: column %s is not a number" % (check.path, check.column)
    if check.agg == "mean":
        return sum(values) / len(values), None
    if check.agg == "min":
        return min(values), None
    if check.agg == "max":
        return max(values), None
    if check.agg == "sd":
        if len(values) < 2:
            return None, "%s: sd needs two rows or more, %d match %s" % (check.path, len(values), check.where)
        mean = sum(values) / len(values)
        return (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5, None
    if len(values) != 1:
        return None, "%s: %d rows match %s (name mean, min or max)" % (check.path, len(values), check.where)
    return values[0], None


def run_step(number, setup, commands, build, log_dir):
    """Run one step's commands after the setup in one sh -e; (ok, seconds)."""
    script = "\n".join(setup) + '\nexport PATH="%s:$PATH"\n' % os.path.abspath(build) + "\n".join(commands)
    os.makedirs(log_dir, exist_ok=True)
    log_path = os.path.join(log_dir, "step%d.log" % number)
    start = time.time()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(["sh", "-e", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace")
        for text in proc.stdout:
            log.write(text)
            sys.stdout.write("   " + text)
        proc.wait()
    seconds = time.time() - start
    return proc.returncode == 0, seconds, log_path


def cpu_name():
    """The CPU's model name and widest vector extension, as /proc/cpuinfo says."""
    name, flags = "unknown", ""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8", errors="replace"):
            key, _, value = line.partition(":")
            if key.strip() == "model name" and name == "unknown":
                name = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = value.split()
    except OSError:
        pass
    isa = "avx512" if "avx512f" in flags else "avx2" if "avx2" in flags else "other"
    return "%s (%s, %d cores)" % (name, isa, os.cpu_count() or 0)


TIMING_FIELDS = ["step", "mode", "seconds", "ok", "date", "cpu"]


def write_timings(path, rows):
    """Merge rows {step: row} into the timings CSV at path (by step), via a temporary file."""
    merged = {}
    if os.path.exists(path):
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                merged[int(r["step"])] = r
    merged.update(rows)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=TIMING_FIELDS)
        w.writeheader()
        for step in sorted(merged):
            w.writerow({k: merged[step][k] for k in TIMING_FIELDS})
    os.replace(tmp, path)


def record_timings(source, csv_path, md_path):
    """Copy the timings CSV source to csv_path and write its table to md_path."""
    if not os.path.exists(source):
        return "no %s: run the steps first" % source
    with open(source, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    write_timings(csv_path, {int(r["step"]): r for r in rows})
    lines = ["| step | fast or slow | seconds here | ran | date | machine |",
             "| ---: | --- | ---: | --- | --- | --- |"]
    for r in rows:
        lines.append("| %s | %s | %.0f | %s | %s | %s |" % (r["step"], r["mode"], float(r["seconds"]),
                                                        "yes" if r["ok"] == "1" else "FAILED", r["date"], r["cpu"]))
    os.makedirs(os.path.dirname(md_path), exist_ok=True)
    with open(md_path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(md_path + ".tmp", md_path)
    return None


def commit_step_files(number, checks):
    """Copy the files the checks of step `number` read (results/lab/X) from
    where the step wrote them (lab/X), with the manifest beside each; the
    names copied, or an error string."""
    copied = []
    for path in sorted({c.path for c in checks if c.step == number and c.path.startswith("results/lab/")}):
        source = path[len("results/"):]
        if not os.path.exists(source):
            return None, "step %d wrote no %s (the sheet reads %s)" % (number, source, path)
        pairs = [(source, path)]
        manifest = re.sub(r"\.csv$", ".manifest.json", source)
        if manifest != source and os.path.exists(manifest):
            pairs.append((manifest, re.sub(r"\.csv$", ".manifest.json", path)))
        for src, dst in pairs:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst + ".tmp")
            os.replace(dst + ".tmp", dst)
            copied.append(dst)
    return copied, None


def record(sheets, checks, measured):
    """Write measured numbers into the 'we saw' cells of their rows, at the
    precision the sheet quotes them (the prose numbers are left alone)."""
    for sheet in sheets:
        lines = open(sheet, encoding="utf-8").read().split("\n")
        for c in checks:
            if c.what.startswith("prose: ") or c.sheet != sheet or c not in measured:
                continue
            value, line = measured[c], c.line
            cells = lines[line - 1].split("|")
            old = cells[3].strip()
            text = ("%+.*f" if old.startswith("+") or old.startswith("-") else "%.*f") % (c.decimals, value)
            cells[3] = " %s " % text
            lines[line - 1] = "|".join(cells)
        tmp = sheet + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        os.replace(tmp, sheet)


def copy_shown(sheets, pattern, folder, into):
    """Copy every lab/NAME the sheets show or link as FOLDER/NAME (pattern) into the folder
    into; the complaints about those no step wrote."""
    failed = []
    os.makedirs(into, exist_ok=True)
    for sheet in sheets:
        for name in sorted(set(pattern.findall(open(sheet, encoding="utf-8").read()))):
            source = os.path.join("lab", name)
            if os.path.exists(source):
                shutil.copyfile(source, os.path.join(into, name))
            else:
                failed.append("%s shows %s/%s, but no step wrote %s" % (sheet, folder, name, source))
    return failed


def main(argv):
    """Parse options, run the steps asked for, check the numbers, report."""
    build, fast, only, check_only, figures, do_record, sheets = "build", False, None, False, None, False, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--build", "--step", "--figures"):
            if i + 1 >= len(argv):
                fail("option %s needs a value" % a)
            value = argv[i + 1]
            if a == "--build":
                build = value
            elif a == "--figures":
                figures = value
            else:
                try:
                    only = {int(s) for s in value.split(",")}
                except ValueError:
                    fail("option --step: '%s' is not a list of step numbers" % value)
            i += 2
            continue
        if a == "--fast":
            fast = True
        elif a == "--check-only":
            check_only = True
        elif a == "--record":
            do_record = True
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        elif a.startswith("--"):
            fail("unknown option %s" % a)
        else:
            sheets.append(a)
        i += 1
    sheets = sheets or ["docs/lab/README.md", "docs/lab/instructor.md"]
    setup, steps, checks = [], {}, []
    for n, sheet in enumerate(sheets):
        s_setup, s_steps, s_checks = parse_sheet(sheet)
        if n == 0:
            setup, steps = s_setup, s_steps
        elif s_setup or any(cmds for _, cmds in s_steps.values()):
            fail("%s: only the first sheet (the student's) may hold commands" % sheet)
        checks += s_checks
    unmarked, prose_docs = [], sheets + [doc for doc in PROSE_DOCS if doc not in sheets]
    for doc in prose_docs:
        if os.path.exists(doc):
            doc_lines = open(doc, encoding="utf-8").read().split("\n")
            if doc not in sheets:
                checks += prose_checks(doc, doc_lines, lambda n: None)
            unmarked += unmarked_numbers(doc, doc_lines)
    if not steps:
        fail("%s: no <!-- lab-step N fast|slow --> marks" % sheets[0])
    for c in checks:
        if c.step is None and c.path.startswith("results/lab/"):
            fail("%s:%d: %s is made by a step of the lab: quote it under that step" % (c.sheet, c.line, c.path))
        if c.step is None:
            continue
        if c.step not in steps:
            fail("%s:%d: step %d is not a step of %s" % (c.sheet, c.line, c.step, sheets[0]))
        if c.path.startswith("results/lab/") and c.produced_as() not in "\n".join(steps[c.step][1]):
            fail("%s:%d: %s is not named by the commands of step %d (the step that quotes a number makes it)"
                 % (c.sheet, c.line, c.produced_as(), c.step))
    chosen = [n for n in sorted(steps) if (only is None or n in only) and (not fast or steps[n][0])]
    failed = list(unmarked)
    if not check_only:
        timings, cpu = {}, cpu_name()
        for n in chosen:
            print("== lab step %d (%s)" % (n, "fast" if steps[n][0] else "slow"), flush=True)
            ok, seconds, log_path = run_step(n, setup, steps[n][1], build, "lab/logs")
            note = "" if seconds <= STEP_BUDGET_S else " (over the sheet's 5 minutes)"
            print("== lab step %d: %s in %.0f s%s; log %s" % (n, "done" if ok else "FAILED", seconds, note, log_path))
            if not ok:
                failed.append("step %d failed (see %s)" % (n, log_path))
            elif not fast:
                copied, err = commit_step_files(n, checks)
                if err:
                    failed.append(err)
                elif copied:
                    print("== lab step %d: its numbers into %s" % (n, ", ".join(copied)))
            timings[n] = {"step": n, "mode": "fast" if steps[n][0] else "slow", "seconds": "%.1f" % seconds,
                          "ok": int(ok), "date": time.strftime("%Y-%m-%d", time.gmtime()), "cpu": cpu}
        write_timings("lab/timings.csv", timings)
    # which numbers to check: those of the steps run, and every committed one
    if check_only:
        todo = [c for c in checks if only is None or c.step in only or c.step is None]
    else:
        todo = [c for c in checks if c.step in chosen or c.committed()]
    measured = {}
    print("%-5s %-52s %10s %10s %7s  %s" % ("step", "quantity", "sheet", "measured", "±", "check"))
    for c in todo:
        value, err = read_value(c)
        if err:
            failed.append("%s:%d: %s" % (c.sheet, c.line, err))
            print("%-5s %-52s %10g %10s %7g  %s" % (c.step or "-", c.what[:52], c.quoted, "-", c.tol, "MISSING"))
            continue
        measured[c] = value
        ok = c.agrees(value)
        print("%-5s %-52s %10g %10.4g %7g  %s" % (c.step or "-", c.what[:52], c.quoted, value, c.tol,
                                                   "ok" if ok else "DIFFERS"))
        if not ok:
            failed.append("%s:%d: %s: the sheet says %g ± %g, %s gave %.4g"
                          % (c.sheet, c.line, c.what, c.quoted, c.tol,
                             "step %d" % c.step if c.step else c.path, value))
    if do_record:
        record(sheets, todo, measured)
        print("lab: recorded %d numbers into %s" % (len(measured), ", ".join(sheets)))
        err = record_timings("lab/timings.csv", "results/lab/timings.csv", "results/md/lab-timings.md")
        if err:
            failed.append(err)
        else:
            print("lab: recorded the steps' times into results/lab/timings.csv and results/md/lab-timings.md")
    if figures:
        failed += copy_shown(sheets, FIGURE, "figures", figures)
        failed += copy_shown(sheets, PAGE, "pages", os.path.join(os.path.dirname(figures.rstrip("/")), "pages"))
    for f in failed:
        print("lab: " + f, file=sys.stderr)
    agreeing = sum(1 for c in todo if c in measured and c.agrees(measured[c]))
    print("lab: %d of %d numbers as the sheets say; %d steps run" % (agreeing, len(todo),
                                                                     0 if check_only else len(chosen)))
    print("lab: %d decimal numbers of the prose of %s with no source marker or exemption"
          % (len(unmarked), ", ".join(prose_docs)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
