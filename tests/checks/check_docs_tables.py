#!/usr/bin/python3
"""check_docs_tables.py — every table that docs/ takes from a results file is
that file, unchanged.

Usage: python3 tests/checks/check_docs_tables.py [ROOT]

A page of docs/ marks such a table as
    <!-- BEGIN:NAME -->
    ...
    <!-- END:NAME -->
and the lines between the markers must equal results/md/NAME.md, which the
script that made the numbers wrote from its CSV files (examples/reproduce.sh,
examples/house.sh). Prints one line per mismatch and "N passed, N failed".
"""
import glob
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
block = re.compile(r"<!-- BEGIN:([\w.-]+) -->\n(.*?)<!-- END:\1 -->", re.S)
passed, failed = 0, []
for doc in sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)):
    text = open(doc, encoding="utf-8").read()
    for m in block.finditer(text):
        name, body = m.group(1), m.group(2)
        source = os.path.join(root, "results", "md", name + ".md")
        rel = os.path.relpath(doc, root)
        if not os.path.exists(source):
            failed.append("%s: table %s has no results/md/%s.md" % (rel, name, name))
        elif body.strip() != open(source, encoding="utf-8").read().strip():
            failed.append("%s: table %s differs from results/md/%s.md" % (rel, name, name))
        else:
            passed += 1
for line in failed:
    print("docs: " + line)
print("docs tables: %d passed, %d failed" % (passed, len(failed)))
sys.exit(1 if failed else 0)
