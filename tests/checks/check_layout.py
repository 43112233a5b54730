#!/usr/bin/python3
"""check_layout.py — the house rules of src/, viz/ and tests/, checked on the code.

Usage: python3 tests/checks/check_layout.py [ROOT] [OBJ_DIR] [--fix-reading]

ROOT is the checkout (default: two folders above this file). A room is a
folder of src/ or viz/ that holds source files: `engine`, `text/hf` (named
from src/), `viz/draw`, `viz/figures` (named from the checkout). The rules:

  1. Every room has a README.md whose line "May include: a, b, c" names the
     rooms its files may include (besides their own). A quoted include of
     another room not named there fails.
  2. The engine (src/engine/) includes nothing from the repetition, RePo,
     labelling, training, theory or run folders: the model knows nothing of
     sequence repetition. (Rule 1 already says so; this names the reason.)
  3. No file of src/ includes a graphics header (cairo, SDL2, stb_image_write).
  4. No loop and no arrow back up: neither between rooms nor between modules
     (x.c + x.h), whether the arrows are includes or, when OBJ_DIR (a build's
     obj/ folder) is given, calls (which object file uses a symbol another
     one defines, read with nm), or both together: a module that includes
     another may not be called by it.
  5. Headroom: no source file of src/ or viz/ is longer than 700 lines (of
     tests/, 800), no folder of src/, viz/ or tests/ holds more than 20
     source files, and no function, in tests/ too, is longer than 80 lines
     but those named in LONG_FUNCTIONS, each with its reason.
  6. tests/ keeps its files in rooms (unit/, e2e/, golden/, reference/,
     fuzz/, fault/, soak/, bench/, checks/), each with a README.md.
  7. docs/reading.md, the reading path, names files that exist, each with
     its size in lines exactly, and its total; README.md's Layout section
     gives the same number of files and total, at most 2,500 lines, and the
     path holds the idea (the copies, the mask, the forward, the read-out,
     the probe, fine-tuning, the metric, the block count: READING_IDEAS).
     `--fix-reading` writes the sizes and totals instead of checking them.
     README.md's Layout block names every top-level folder of the checkout.
  8. The teaching model: src/engine/model.c has at most 500 lines and names
     no field of a family's configuration (engine/families/family.h's
     ModelFamily) and nothing of weights kept as stored; ModelConfig holds
     the plain fields and the family's nested.
  9. One table of tensors: no parameter tensor picked by a bare number
     (`sizes[9]`), and only engine/tensors.c lays views out (offsetof on
     ParamViews, ActViews, LayerActs).
 10. A figure is one row: tests/unit/viz/test_figure_table.c registers a
     figure that exists only in the test (figures_register) and has plot
     (cmd_plot), the explorer's views and its saves serve it; no switch on a
     figure or view, and no `default:` fallback, in viz/figures,
     viz/figure_row, viz/commands or tests/unit/viz; no enum of figure kinds
     or views (FigureKind, FIGURE_COUNT, VIEW_COUNT) in viz/ or tests/.

Prints one line per broken rule and a closing "N passed, N failed" line;
exit status 1 when anything failed.
"""
import os
import re
import subprocess
import sys

FIX_READING = "--fix-reading" in sys.argv
ARGS = [a for a in sys.argv[1:] if a != "--fix-reading"]
ROOT = os.path.abspath(ARGS[0] if ARGS else os.path.join(os.path.dirname(__file__), "..", ".."))
OBJ_DIR = ARGS[1] if len(ARGS) > 1 else None
MAX_LINES = 700
MAX_TEST_LINES = 800
MAX_ROOM_FILES = 20
MAX_FUNCTION_LINES = 80
MAX_MODEL_LINES = 500
MAX_READING_LINES = 2500
# the ideas the reading path must hold, each by the file that holds it
READING_IDEAS = {
    "the copies": "src/repeat/repeat.c",
    "the mask": "src/engine/ops/mask.h",
    "the forward": "src/engine/model.c",
    "the read-out": "src/label/readout.c",
    "the probe": "src/label/probe.c",
    "fine-tuning": "src/train/finetune.c",
    "the metric": "src/label/metrics.c",
    "the block count": "src/theory/blocks.c",
}
# functions allowed past MAX_FUNCTION_LINES: "path:function" -> the reason
LONG_FUNCTIONS = {}
TEST_ROOMS = ["unit", "e2e", "golden", "reference", "fuzz", "fault", "soak", "bench", "checks"]
GRAPHICS = re.compile(r"^\s*#\s*include\s*[<\"](cairo|SDL|stb_image_write)", re.M)
QUOTED = re.compile(r"^\s*#\s*include\s*\"([^\"]+)\"", re.M)
ENGINE_NEVER = {"repeat", "repo", "label", "train", "theory", "runs", "cli", "options"}

passed, failed = 0, []


def check(ok, message):
    """Count one check; remember its message when it failed."""
    global passed
    if ok:
        passed += 1
    else:
        failed.append(message)


def sources(folder):
    """Every .c and .h file under ROOT/folder, as paths relative to ROOT."""
    out = []
    for dirpath, _, names in os.walk(os.path.join(ROOT, folder)):
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return sorted(out)


def room_of(path):
    """The room of a file: its folder, named from src/ for the core ('engine',
    'text/hf') and from the checkout for viz/ ('viz', 'viz/draw')."""
    folder = os.path.dirname(path).replace(os.sep, "/")
    return folder[len("src/"):] if folder.startswith("src/") else folder


def module_of(path):
    """x.c and x.h form one module, named by the path without its extension."""
    return os.path.splitext(path)[0]


def find_cycle(edges):
    """One cycle of the directed graph edges (node -> set of nodes), or None."""
    colour, stack = {}, []

    def visit(node):
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if colour.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if colour.get(nxt) is None:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        colour[node] = 2
        return None

    for node in sorted(edges):
        if colour.get(node) is None:
            found = visit(node)
            if found:
                return found
    return None


# a comment (to its end or the file's), a string or a character literal (to
# its closing quote, or through the end of its line when it has none)
LITERAL = re.compile(r"""/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\\n])*["\n]?|'(?:\\.|[^'\\\n])*['\n]?""", re.S)


def blank_comments_and_strings(text):
    """text with every comment, string and character literal replaced by
    spaces (newlines kept), so braces and parentheses can be counted."""
    return LITERAL.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def functions(text):
    """(name, first line, last line) of every function defined in C text: a
    '{' at file scope right after a ')' opens a body; it starts at the line of
    the name before the matching '(' and ends at the matching '}'."""
    code = blank_comments_and_strings(text)
    code = re.sub(r"^\s*#.*$", lambda m: " " * len(m.group(0)), code, flags=re.M)
    found, depth, i = [], 0, 0
    while i < len(code):
        c = code[i]
        if c == "{":
            if depth == 0:
                j = i - 1
                while j >= 0 and code[j].isspace():
                    j -= 1
                if j >= 0 and code[j] == ")":
                    level, k = 0, j
                    while k >= 0:
                        if code[k] == ")":
                            level += 1
                        elif code[k] == "(":
                            level -= 1
                            if level == 0:
                                break
                        k -= 1
                    m = re.search(r"(\w+)\s*$", code[:k])
                    if m:
                        start = code.count("\n", 0, m.start(1)) + 1
                        body_depth, e = 0, i
                        while e < len(code):
                            if code[e] == "{":
                                body_depth += 1
                            elif code[e] == "}":
                                body_depth -= 1
                                if body_depth == 0:
                                    break
                            e += 1
                        found.append((m.group(1), start, code.count("\n", 0, e) + 1))
            depth += 1
        elif c == "}":
            depth -= 1
        i += 1
    return found


def check_function_lengths(path, text):
    """Rule 5 on every function of the C file at path (text: its contents)."""
    if not path.endswith(".c"):
        return
    for name, first, last in functions(text):
        key = "%s:%s" % (path, name)
        length = last - first + 1
        check(length <= MAX_FUNCTION_LINES or key in LONG_FUNCTIONS,
              "%s is %d lines long (more than %d)" % (key, length, MAX_FUNCTION_LINES))


files = sources("src") + sources("viz")
rooms = sorted({room_of(f) for f in files if room_of(f) not in ("src",)})
check(not [f for f in files if room_of(f) == "src"], "src/ holds source files outside its stage folders")

# ---- rule 1: what each room may include, from its README ----
allowed = {}
for room in rooms:
    folder = room if room.startswith("viz") else "src/" + room
    readme = os.path.join(ROOT, folder, "README.md")
    text = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
    m = re.search(r"^May include:\s*(.*)$", text, re.M)
    check(m is not None, "%s/README.md: no 'May include:' line" % folder)
    line = "" if m is None else re.split(r"[;(]| and | — ", m.group(1))[0]
    names = [w.strip(" .`") for w in line.split(",")]
    allowed[room] = {n for n in names if n and n != "nothing"}
    for n in allowed[room]:
        check(n in rooms, "%s/README.md: 'May include' names no room '%s'" % (folder, n))

headers = {}  # include spelling -> path
for f in files:
    if f.startswith("src" + os.sep):
        headers[f.split(os.sep, 1)[1]] = f
    else:
        headers[os.path.relpath(f, "viz")] = f

module_edges, room_edges = {}, {}
for f in files:
    text = open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read()
    room = room_of(f)
    # rule 3
    if f.startswith("src" + os.sep):
        check(not GRAPHICS.search(text), "%s includes a graphics header" % f)
    # rule 5
    n_lines = text.count("\n")
    check(n_lines <= MAX_LINES, "%s has %d lines (more than %d)" % (f, n_lines, MAX_LINES))
    # rule 9
    for bare in re.findall(r"\w*sizes\[\d+\]", blank_comments_and_strings(text)):
        check(False, "%s picks a tensor by a bare number (%s): use engine/tensors.h's table"
              % (f, bare))
    if f != os.path.join("src", "engine", "tensors.c"):
        check(not re.search(r"offsetof\s*\(\s*(ParamViews|ActViews|LayerActs)\b", text),
              "%s lays out the model's views (only engine/tensors.c may)" % f)
    check_function_lengths(f, text)
    for name in QUOTED.findall(text):
        target = headers.get(name)
        if target is None:
            local = os.path.normpath(os.path.join(os.path.dirname(f), name))
            target = local if local in files else None
        if target is None:
            check(False, "%s includes \"%s\", which is no header of src/ or viz/" % (f, name))
            continue
        to_room = room_of(target)
        if to_room != room:
            if room == "engine":
                check(to_room not in ENGINE_NEVER,
                      "%s: the engine includes %s (it must know nothing of repetition, RePo or runs)"
                      % (f, target))
            check(to_room in allowed.get(room, set()),
                  "%s includes %s, but %s/ may not include %s/" % (f, target, room, to_room))
            room_edges.setdefault(room, set()).add(to_room)
        if module_of(target) != module_of(f):
            module_edges.setdefault(module_of(f), set()).add(module_of(target))

for room in rooms:
    count = len([f for f in files if room_of(f) == room])
    check(count <= MAX_ROOM_FILES, "%s holds %d source files (more than %d)" % (room, count, MAX_ROOM_FILES))
for key in LONG_FUNCTIONS:
    check(os.path.exists(os.path.join(ROOT, key.split(":")[0])),
          "LONG_FUNCTIONS names %s, whose file is gone" % key)

# ---- rule 4: loops ----
cycle = find_cycle(room_edges)
check(cycle is None, "include loop between rooms: %s" % " -> ".join(cycle or []))
cycle = find_cycle(module_edges)
check(cycle is None, "include loop between modules: %s" % " -> ".join(cycle or []))

if OBJ_DIR:
    defined, used, objects = {}, {}, {}
    for dirpath, _, names in os.walk(OBJ_DIR):
        for name in names:
            if not name.endswith(".o"):
                continue
            obj = os.path.join(dirpath, name)
            rel = os.path.relpath(obj, OBJ_DIR)[:-2]
            module = rel if rel.startswith("viz/") else "src/" + rel
            if not os.path.exists(os.path.join(ROOT, module + ".c")):
                continue  # left behind by a source file that is gone
            objects[obj] = module
    # one nm for every object (-A: each line starts with its file)
    out = subprocess.run(["nm", "-A", "--"] + sorted(objects), capture_output=True, text=True).stdout
    for line in out.splitlines():
        obj, _, symbol = line.partition(":")
        module, parts = objects.get(obj), symbol.split()
        if module is None:
            continue
        if len(parts) == 3 and parts[1] in "TDBR":
            defined[parts[2]] = module
        elif len(parts) == 2 and parts[0] == "U":
            used.setdefault(module, set()).add(parts[1])
    call_edges = {}
    for module, symbols in used.items():
        for s in symbols:
            to = defined.get(s)
            if to and to != module:
                call_edges.setdefault(module, set()).add(to)
    check(bool(defined), "%s: no object files to read the call graph from" % OBJ_DIR)
    cycle = find_cycle(call_edges)
    check(cycle is None, "call loop between modules: %s" % " -> ".join(cycle or []))
    for a, bs in sorted(call_edges.items()):
        for b in sorted(bs):
            check(a not in module_edges.get(b, set()),
                  "arrow back up: %s calls %s, which includes it" % (a, b))
    both = {m: set(e) for m, e in module_edges.items()}
    for m, e in call_edges.items():
        both.setdefault(m, set()).update(e)
    cycle = find_cycle(both)
    check(cycle is None, "arrow back up (includes and calls together loop): %s" % " -> ".join(cycle or []))
    room_calls = {}
    for a, bs in call_edges.items():
        for b in bs:
            ra, rb = room_of(a + ".c"), room_of(b + ".c")
            if ra != rb:
                room_calls.setdefault(ra, set()).add(rb)
    cycle = find_cycle(room_calls)
    check(cycle is None, "call loop between rooms: %s" % " -> ".join(cycle or []))

# ---- rule 6: tests/ in rooms ----
tests = os.path.join(ROOT, "tests")
for entry in sorted(os.listdir(tests)):
    path = os.path.join(tests, entry)
    check(os.path.isdir(path) or entry == "README.md",
          "tests/%s stands at the top of tests/, outside its rooms" % entry)
    if os.path.isdir(path):
        check(entry in TEST_ROOMS, "tests/%s/ is no room named in tests/README.md's list" % entry)
for room in TEST_ROOMS:
    check(os.path.exists(os.path.join(tests, room, "README.md")), "tests/%s/ has no README.md" % room)

# ---- rule 5 in tests/: file and function length, files per folder ----
test_files = sources("tests")
for f in test_files:
    text = open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read()
    n_lines = text.count("\n")
    check(n_lines <= MAX_TEST_LINES, "%s has %d lines (more than %d)" % (f, n_lines, MAX_TEST_LINES))
    check_function_lengths(f, text)
for folder in sorted({os.path.dirname(f) for f in test_files}):
    count = len([f for f in test_files if os.path.dirname(f) == folder])
    check(count <= MAX_ROOM_FILES, "%s holds %d source files (more than %d)" % (folder, count, MAX_ROOM_FILES))

# ---- rule 7: the reading path and the README's layout ----
def lines_of(path):
    """The number of lines of the file at path (relative to ROOT)."""
    return open(os.path.join(ROOT, path), encoding="utf-8", errors="replace").read().count("\n")


def number(n):
    """n as the docs write it: 2,445."""
    return "{:,}".format(n)


SIZE = re.compile(r"\((\d[\d,]*) lines\)")
WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen"]
reading = os.path.join(ROOT, "docs", "reading.md")
text = open(reading, encoding="utf-8").read() if os.path.exists(reading) else ""
pieces = re.split(r"(^\d+\.\s+)", text, flags=re.M)  # [head, "1. ", item, "2. ", item, ...]
listed, fixed = [], [pieces[0]]
for marker, item in zip(pieces[1::2], pieces[2::2]):
    m = re.match(r"`([^`]+)`", item)
    size = SIZE.search(item)
    if m and size:
        path = m.group(1)
        lines = lines_of(path) if os.path.isfile(os.path.join(ROOT, path)) else None
        listed.append((path, int(size.group(1).replace(",", "")), lines))
        if lines is not None:
            item = item[:size.start()] + "(%s lines)" % number(lines) + item[size.end():]
    fixed += [marker, item]
total = sum(lines or 0 for _, _, lines in listed)
SUMMARY = re.compile(r"lives in (\w+) files, ([\d,]+) lines")
README_SUMMARY = re.compile(r"the (\w+) files that\s+hold the paper's idea, in order, ([\d,]+) lines")
readme_path = os.path.join(ROOT, "README.md")
readme = open(readme_path, encoding="utf-8").read()
if FIX_READING:
    new = SUMMARY.sub("lives in %s files, %s lines" % (WORDS[len(listed)], number(total)), "".join(fixed))
    open(reading, "w", encoding="utf-8").write(new)
    readme = README_SUMMARY.sub(lambda m: m.group(0).replace(m.group(1), WORDS[len(listed)], 1)
                                .replace(m.group(2), number(total)), readme)
    open(readme_path, "w", encoding="utf-8").write(readme)
    text = new
check(len(listed) >= 8, "docs/reading.md lists %d files with their sizes (wanted about ten)" % len(listed))
for path, said, lines in listed:
    check(lines is not None, "docs/reading.md lists %s, which is gone" % path)
    check(lines is None or said == lines or FIX_READING,
          "docs/reading.md says %s has %d lines; it has %s (--fix-reading writes it)" % (path, said, lines))
for idea, path in READING_IDEAS.items():
    check(path in [p for p, _, _ in listed], "docs/reading.md no longer holds %s (%s)" % (idea, path))
check(total <= MAX_READING_LINES, "the reading path has %d lines (more than %d)" % (total, MAX_READING_LINES))
for name, where, pattern in (("docs/reading.md", text, SUMMARY), ("README.md", readme, README_SUMMARY)):
    m = pattern.search(where)
    check(m is not None, "%s does not say how many files and lines the reading path has" % name)
    if m:
        check(m.group(1) == WORDS[len(listed)] and m.group(2) == number(total),
              "%s says the reading path is %s files, %s lines; it is %s, %s (--fix-reading writes it)"
              % (name, m.group(1), m.group(2), WORDS[len(listed)], number(total)))
layout = re.search(r"^## Layout\n+```\n(.*?)```", readme, re.M | re.S)
check(layout is not None, "README.md has no Layout block")
tracked = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True).stdout.split()
top = sorted({t.split("/")[0] for t in tracked if "/" in t and not t.startswith(".")})
for folder in top:
    check(layout is not None and re.search(r"^%s/" % re.escape(folder), layout.group(1), re.M) is not None,
          "README.md's Layout does not show %s/" % folder)

# ---- rule 8: the teaching model ----
model_c = open(os.path.join(ROOT, "src", "engine", "model.c"), encoding="utf-8").read()
check(model_c.count("\n") <= MAX_MODEL_LINES,
      "src/engine/model.c has %d lines (more than %d)" % (model_c.count("\n"), MAX_MODEL_LINES))
family_h = open(os.path.join(ROOT, "src", "engine", "families", "family.h"), encoding="utf-8").read()
family_struct = re.search(r"typedef struct \{(.*?)\} ModelFamily;", family_h, re.S)
check(family_struct is not None, "engine/families/family.h declares no ModelFamily")
family_fields = set()
if family_struct:
    body = re.sub(r"/\*.*?\*/", "", family_struct.group(1), flags=re.S)
    for decl in body.split(";"):
        family_fields.update(n for n in re.findall(r"\b([a-z_][a-z0-9_]*)\b", decl)
                             if n not in ("int", "float", "unsigned", "long", "double"))
check(len(family_fields) >= 10, "ModelFamily has %d fields (the check expects the family's)" % len(family_fields))
model_code = blank_comments_and_strings(model_c)
for field in sorted(family_fields):
    check(not re.search(r"\b%s\b" % field, model_code), "src/engine/model.c names the family field %s" % field)
for word in ("Stored", "stored", "serving"):
    check(word not in model_c, "src/engine/model.c names weights kept as stored (%s)" % word)
tensors_h = open(os.path.join(ROOT, "src", "engine", "tensors.h"), encoding="utf-8").read()
config = re.search(r"typedef struct \{(.*?)\} ModelConfig;", tensors_h, re.S)
check(config is not None and re.search(r"\bModelFamily family;", config.group(1)) is not None,
      "ModelConfig (engine/tensors.h) does not nest the family's fields as ModelFamily family")
if config:
    body = re.sub(r"/\*.*?\*/", "", config.group(1), flags=re.S)
    for field in sorted(family_fields):
        check(not re.search(r"\b%s\b" % field, body), "ModelConfig holds the family field %s itself" % field)

# ---- rule 10: a figure is one row ----
test_figure = os.path.join(ROOT, "tests", "unit", "viz", "test_figure_table.c")
check(os.path.exists(test_figure), "tests/unit/viz/test_figure_table.c (a figure of the test's own) is missing")
if os.path.exists(test_figure):
    code = blank_comments_and_strings(open(test_figure, encoding="utf-8").read())
    for call in ("figures_register", "cmd_plot", "explorer_view_named", "explorer_save_view"):
        check(re.search(r"\b%s\s*\(" % call, code) is not None,
              "tests/unit/viz/test_figure_table.c does not call %s: its figure is not served" % call)
row_folders = [os.path.join("viz", d) for d in ("figures", "figure_row", "commands")]
for dirpath, _, names in sorted(os.walk(ROOT)):
    rel = os.path.relpath(dirpath, ROOT)
    if not (rel.startswith("viz") or rel.startswith("tests")):
        continue
    for name in sorted(names):
        if not name.endswith((".c", ".h")):
            continue
        path = os.path.join(rel, name)
        code = blank_comments_and_strings(open(os.path.join(ROOT, path), encoding="utf-8",
                                               errors="replace").read())
        for word in ("FigureKind", "FIGURE_COUNT", "VIEW_COUNT"):
            check(not re.search(r"\b%s\b" % word, code), "%s names %s: figures are rows, not kinds" % (path, word))
        check(not re.search(r"switch\s*\([^)]*\b(view|fig|figure)\b", code),
              "%s switches on a figure or view" % path)
        if rel in row_folders:
            check(not re.search(r"\bswitch\s*\(", code), "%s has a switch (a figure's differences are its row's)" % path)
        if rel in row_folders or rel == os.path.join("tests", "unit", "viz"):
            check(not re.search(r"\bdefault\s*:", code), "%s has a default: fallback" % path)

for message in failed:
    print("layout: " + message)
print("layout: %d passed, %d failed" % (passed, len(failed)))
sys.exit(1 if failed else 0)
