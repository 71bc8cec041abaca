#!/usr/bin/env bash
# Hostile input and faults, end to end (docs/cli.md, "Output directory"): strings that
# would inject gnuplot commands, break JSON or CSV, or close a <script> element; absurd
# step counts and sizes refused up front; temporary names that are symlinks; two runs into
# one OUTDIR; SIGINT/SIGTERM. usage: hostile_test.sh KEDYN EXAMPLES_DIR
set -u
kedyn=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
examples=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
json_ok() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
cd "$tmp" || exit 1

# ---- gnuplot: a title with newlines cannot add commands to a script ------------------
sed 's/^title:.*/title: "x\\nsystem(\\"touch pwned\\")\\n# `touch pwned` @x"/' "$examples/rotating_bar.yaml" >gp.yaml
"$kedyn" run gp.yaml -o gp --quiet --report >/dev/null 2>&1
"$kedyn" plot gp --quiet >/dev/null 2>&1
check "gnuplot title injection runs nothing" test ! -e pwned -a ! -e gp/pwned -a ! -e gp/figures/pwned
if command -v gnuplot >/dev/null; then
  check "gnuplot title: figures drawn" test -n "$(ls gp/figures/*.svg 2>/dev/null)"
fi

# ---- summary.json: every string escaped (a link named with a backslash) --------------
sed "s/name: rod,/name: 'r\\\\d',/; s/\[crank, rod\]/[crank, 'r\\\\d']/; s/\[rod, slider\]/['r\\\\d', slider]/" \
  "$examples/slider_crank_elastic.yaml" >bs.yaml
"$kedyn" run bs.yaml -o bs --quiet >/dev/null 2>&1; code=$?
check "backslash link name runs" test $code -eq 0
check "backslash link name: summary.json is JSON" json_ok bs/summary.json
check "backslash link name: link in summary" grep -q '"r\\\\d": {"omega_min' bs/summary.json
sed 's/^title:.*/title: "q\\"uote\\\\ <\/script><!--<script>alert(1)<\/script> \\u2028 \&amp;"/' "$examples/slider_crank_elastic.yaml" >tq.yaml
"$kedyn" run tq.yaml -o tq --quiet --report >/dev/null 2>&1
check "hostile title: summary.json is JSON" json_ok tq/summary.json
check "hostile title: animation.json is JSON" json_ok tq/animation.json
# the embedded animation data: no <, >, & or U+2028 left inside the script element
python3 - tq/report.html <<'PY' || { fail=$((fail + 1)); echo "FAIL: report: embedded JSON escaped"; }
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="kd-anim-data">(.*?)</script>', html, re.S)
assert m, "no animation data"
data = m.group(1)
assert not any(c in data for c in "<>&\u2028\u2029"), "unescaped markup in the embedded JSON"
anim = json.loads(data)
assert anim["title"].startswith('q"uote\\ </script><!--<script>'), anim["title"]
assert len(anim["sets"]) >= 1, "no animation sets"
assert html.count("<script") == 2, "a script element from the title"
PY
pass=$((pass + 1))

echo "hostile_test: $pass passed, $fail failed"
test $fail -eq 0
