#!/usr/bin/python3
"""check_layout.py — the house rules of src/ and viz/, checked on the code.

Usage: python3 tests/checks/check_layout.py [ROOT] [OBJ_DIR]

ROOT is the checkout (default: the parent of this file's folder). The rules:

  1. Every folder of src/ has a README.md whose line "May include: a, b, c"
     names the folders its files may include (besides itself); viz/ may
     include every folder of src/ but cli/. A quoted include of a folder not
     named there fails.
  2. The engine (src/engine/) includes nothing from the repetition, RePo,
     labelling, training, theory or run folders: the model knows nothing of
     sequence repetition. (Rule 1 already says so; this names the reason.)
  3. No file of src/ includes a graphics header (cairo, SDL2, stb_image_write).
  4. No loop: neither between folders (folder A includes B and B includes A,
     directly or round a longer circle) nor between modules (x.c + x.h).
     When OBJ_DIR (a build's obj/ folder) is given, the same is checked on the
     real call graph: which object file uses a symbol another one defines
     (nm), folded to modules.
  5. No source file of src/ or viz/ is longer than 800 lines.

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
    """The room a file lives in: 'viz', or the stage folder of src/ ('engine', ...)."""
    parts = path.split(os.sep)
    return "viz" if parts[0] == "viz" else parts[1]


def module_of(path):
    """x.c and x.h form one module, named by the path without its extension."""
    return os.path.splitext(path)[0]


src_rooms = sorted(d for d in os.listdir(os.path.join(ROOT, "src"))
                   if os.path.isdir(os.path.join(ROOT, "src", d)))
check(not [f for f in os.listdir(os.path.join(ROOT, "src")) if f.endswith((".c", ".h"))],
      "src/ holds source files outside its stage folders")

# ---- rule 1: what each room may include, from its README ----
allowed = {}
for room in src_rooms:
    readme = os.path.join(ROOT, "src", room, "README.md")
    text = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
    m = re.search(r"^May include:\s*(.*)$", text, re.M)
    check(m is not None, "src/%s/README.md: no 'May include:' line" % room)
    names = [] if m is None else [w.strip(" .`") for w in m.group(1).split(",")]
    allowed[room] = {n for n in names if n and n != "nothing"}
    for n in allowed[room]:
        check(n in src_rooms, "src/%s/README.md: 'May include' names no folder '%s'" % (room, n))
allowed["viz"] = {r for r in src_rooms if r != "cli"}

files = sources("src") + sources("viz")
headers = {}  # include spelling -> path
for f in files:
    rel = f.split(os.sep, 1)[1] if f.startswith("src" + os.sep) else os.path.basename(f)
    headers[rel] = f

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
    for name in QUOTED.findall(text):
        target = headers.get(name)
        if target is None and room == "viz":
            target = headers.get(os.path.basename(name)) if "/" not in name else None
        if target is None:
            check(False, "%s includes \"%s\", which is no header of src/ or viz/" % (f, name))
            continue
        to_room = room_of(target)
        if to_room != room:
            ok = to_room in allowed.get(room, set())
            if room == "engine":
                check(to_room not in ENGINE_NEVER,
                      "%s: the engine includes %s (it must know nothing of repetition, RePo or runs)"
                      % (f, target))
            check(ok, "%s includes %s, but %s/ may not include %s/" % (f, target, room, to_room))
            room_edges.setdefault(room, set()).add(to_room)
        if module_of(target) != module_of(f):
            module_edges.setdefault(module_of(f), set()).add(module_of(target))


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


# ---- rule 4: loops ----
cycle = find_cycle(room_edges)
check(cycle is None, "include loop between folders: %s" % " -> ".join(cycle or []))
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
            module = ("viz/" + rel[4:]) if rel.startswith("viz/") else "src/" + rel
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
    room_calls = {}
    for a, bs in call_edges.items():
        for b in bs:
            ra, rb = room_of(a + ".c"), room_of(b + ".c")
            if ra != rb:
                room_calls.setdefault(ra, set()).add(rb)
    cycle = find_cycle(room_calls)
    check(cycle is None, "call loop between folders: %s" % " -> ".join(cycle or []))

for message in failed:
    print("layout: " + message)
print("layout: %d passed, %d failed" % (passed, len(failed)))
sys.exit(1 if failed else 0)
