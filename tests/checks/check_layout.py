#!/usr/bin/python3
"""check_layout.py — the house rules of src/, viz/ and tests/, checked on the code.

Usage: python3 tests/checks/check_layout.py [ROOT] [OBJ_DIR]

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
  5. No source file of src/ or viz/ is longer than 800 lines, no room holds
     more than 25 source files, and no function is longer than 80 lines but
     those named in LONG_FUNCTIONS, each with its reason.
  6. tests/ keeps its files in rooms (unit/, e2e/, golden/, reference/,
     fuzz/, fault/, soak/, bench/, checks/), each with a README.md.
  7. docs/reading.md, the reading path, names files that exist, each with
     its size in lines within a tenth (or 15 lines) of the file's; README.md's
     Layout block names every top-level folder of the checkout.

Prints one line per broken rule and a closing "N passed, N failed" line;
exit status 1 when anything failed.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
OBJ_DIR = sys.argv[2] if len(sys.argv) > 2 else None
MAX_LINES = 800
MAX_ROOM_FILES = 25
MAX_FUNCTION_LINES = 80
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


def blank_comments_and_strings(text):
    """text with every comment, string and character literal replaced by
    spaces (newlines kept), so braces and parentheses can be counted."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(c)
            i += 1
            continue
        out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
        i = j
    return "".join(out)


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
    if f.endswith(".c"):
        for name, first, last in functions(text):
            key = "%s:%s" % (f, name)
            length = last - first + 1
            check(length <= MAX_FUNCTION_LINES or key in LONG_FUNCTIONS,
                  "%s is %d lines long (more than %d)" % (key, length, MAX_FUNCTION_LINES))
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
    defined, used = {}, {}
    for dirpath, _, names in os.walk(OBJ_DIR):
        for name in names:
            if not name.endswith(".o"):
                continue
            obj = os.path.join(dirpath, name)
            rel = os.path.relpath(obj, OBJ_DIR)[:-2]
            module = rel if rel.startswith("viz/") else "src/" + rel
            if not os.path.exists(os.path.join(ROOT, module + ".c")):
                continue  # left behind by a source file that is gone
            out = subprocess.run(["nm", obj], capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
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

# ---- rule 7: the reading path and the README's layout ----
reading = os.path.join(ROOT, "docs", "reading.md")
text = open(reading, encoding="utf-8").read() if os.path.exists(reading) else ""
items = re.split(r"^\d+\.\s+", text, flags=re.M)[1:]  # one numbered item each, over its lines
listed = [(m.group(1), m.group(2)) for m in
          (re.match(r"`([^`]+)`.*?\((\d[\d,]*) lines\)", item, re.S) for item in items) if m]
check(len(listed) >= 8, "docs/reading.md lists %d files with their sizes (wanted about ten)" % len(listed))
for path, size in listed:
    full = os.path.join(ROOT, path)
    check(os.path.isfile(full), "docs/reading.md lists %s, which is gone" % path)
    if os.path.isfile(full):
        lines = open(full, encoding="utf-8", errors="replace").read().count("\n")
        said = int(size.replace(",", ""))
        check(abs(lines - said) <= max(15, lines // 10),
              "docs/reading.md says %s has %d lines; it has %d" % (path, said, lines))
readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
layout = re.search(r"^## Layout\n+```\n(.*?)```", readme, re.M | re.S)
check(layout is not None, "README.md has no Layout block")
tracked = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True).stdout.split()
top = sorted({t.split("/")[0] for t in tracked if "/" in t and not t.startswith(".")})
for folder in top:
    check(layout is not None and re.search(r"^%s/" % re.escape(folder), layout.group(1), re.M) is not None,
          "README.md's Layout does not show %s/" % folder)

for message in failed:
    print("layout: " + message)
print("layout: %d passed, %d failed" % (passed, len(failed)))
sys.exit(1 if failed else 0)
