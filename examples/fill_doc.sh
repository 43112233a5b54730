#!/bin/sh
# fill_doc.sh — replace the lines between <!-- BEGIN:NAME --> and
# <!-- END:NAME --> of a markdown page by MD_DIR/NAME.md, for each NAME
# whose file exists (tests/checks/check_docs_tables.py holds the pages to it).
# Used by examples/reproduce.sh and examples/house_grid.sh.
#
# Usage: sh examples/fill_doc.sh DOC MD_DIR NAME...
set -eu
[ $# -ge 2 ] || { echo "usage: sh examples/fill_doc.sh DOC MD_DIR NAME..." >&2; exit 2; }
doc=$1; dir=$2; shift 2
[ -f "$doc" ] || { echo "fill_doc: $doc: no such file" >&2; exit 2; }
for name in "$@"; do
    [ -f "$dir/$name.md" ] || continue
    awk -v name="$name" -v file="$dir/$name.md" '
        $0 == "<!-- BEGIN:" name " -->" { print; while ((getline line < file) > 0) print line; skip = 1; next }
        $0 == "<!-- END:" name " -->" { skip = 0 }
        !skip { print }' "$doc" >"$doc.tmp.$$" && mv "$doc.tmp.$$" "$doc"
done
