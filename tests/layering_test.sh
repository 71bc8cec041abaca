#!/usr/bin/env bash
# Layering of the sources: no cycle between folders or between files.
#
# usage: layering_test.sh LIBKEDYN_A SOURCE_DIR [OBJECT...]
#   LIBKEDYN_A  the library archive (build/libkedyn.a)
#   SOURCE_DIR  the project's root (to find which src/<layer>/ folder an object comes from)
#   OBJECT...   further objects to check with it, e.g. the command line's (src/cli)
#
# From `nm` of the objects, each undefined global symbol of an object is resolved to the object
# that defines it: that is an edge "user -> definer" between files, and between their folders
# src/<layer>/. The folders are ordered, bottom to top:
#
#   core < numerics < signal < fe < mechanism < constrained < formalisms < analyses < links < compare
#        < load < output < report < run < cli
#
# and a folder may use any folder below it, never one above it (so the folder graph has no cycle).
# Independently, the graph of files must have no cycle, inside a folder too. The test fails,
# listing the offending edges, on (a) a folder edge against this order and (b) a file cycle.
# Symbols of the system libraries (BLAS, SUNDIALS, libc...) are not defined by the objects and
# are ignored; so are local (static) symbols.
set -euo pipefail

ORDER="core numerics signal fe mechanism constrained formalisms analyses links compare load output report run cli"

if [ $# -lt 2 ]; then
    echo "usage: $0 LIBKEDYN_A SOURCE_DIR [OBJECT...]" >&2
    exit 2
fi
lib=$1
srcdir=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# file name -> folder, from the source tree (src/<layer>/<file>.c).
(cd "$srcdir" && find src -mindepth 2 -maxdepth 2 -name '*.c') |
    awk -F/ '{ if (seen[$3]++) { print "duplicate source name " $3 > "/dev/stderr"; bad = 1 }
               print $3, $2 } END { exit bad }' > "$work/folders"

# "object type symbol" for every global symbol, the object as its source name (desc.c).
nm -A "$lib" "$@" | awk '
    NF >= 2 { name = $NF; type = $(NF - 1); where = $1
      sub(/:[0-9a-fA-F]*$/, "", where)        # drop the address (empty for undefined symbols)
      n = split(where, part, ":"); obj = part[n]
      m = split(obj, path, "/"); obj = path[m]
      sub(/\.o(bj)?$/, "", obj)
      if (type ~ /^[A-TV-Z]$/ || type == "U") print obj, type, name }' > "$work/symbols"

# File edges "user definer symbol" (one per pair, with one of the symbols as an example).
awk 'NR == FNR { if ($2 != "U") def[$3] = $1; next }
     $2 == "U" && ($3 in def) && def[$3] != $1 {
         key = $1 " " def[$3]; if (!(key in seen)) { seen[key] = 1; print $1, def[$3], $3 } }' \
    "$work/symbols" "$work/symbols" | sort > "$work/edges"


status=0

# (a) Folder edges against the order.
awk -v order="$ORDER" '
    BEGIN { n = split(order, f, " "); for (i = 1; i <= n; i++) rank[f[i]] = i }
    FILENAME == ARGV[1] { folder[$1] = $2; next }
    { a = ($1 in folder) ? folder[$1] : "?"; b = ($2 in folder) ? folder[$2] : "?"
      if (a == b) next
      if (!(a in rank) || !(b in rank)) {
          print "unknown folder: " $1 " (" a ") -> " $2 " (" b ") via " $3; bad = 1; next }
      if (rank[a] < rank[b]) {
          print "folder edge against the order: " a " -> " b ": " $1 " calls " $3 " of " $2; bad = 1 } }
    END { exit bad }' "$work/folders" "$work/edges" || status=1

# (b) File cycles: transitive closure (Floyd-Warshall over ~150 files), then every edge whose
# target reaches back to its source lies on a cycle.
awk '
    { e[$1, $2] = $3; r[$1, $2] = 1; node[$1] = 1; node[$2] = 1 }
    END {
        for (k in node) for (i in node) if ((i, k) in r) for (j in node) if ((k, j) in r) r[i, j] = 1
        for (key in e) { split(key, p, SUBSEP)
            if ((p[2], p[1]) in r) print "file cycle: " p[1] " -> " p[2] " (calls " e[key] ")" }
    }' "$work/edges" | sort > "$work/cycles"
cat "$work/cycles"
[ -s "$work/cycles" ] && status=1

nfiles=$(awk '{ print $1; print $2 }' "$work/edges" | sort -u | wc -l)
nedges=$(wc -l < "$work/edges")
if [ $status -eq 0 ]; then
    echo "layering ok: $nfiles files, $nedges file edges"
else
    echo "layering FAILED ($nfiles files, $nedges file edges)"
fi
exit $status
