#!/usr/bin/env bash
# Hostile input and faults, end to end (docs/cli.md, "Output directory"): strings that
# would inject gnuplot commands, break JSON or CSV, or close a <script> element; absurd
# step counts and sizes refused up front; temporary names that are symlinks; two runs into
# one OUTDIR; SIGINT/SIGTERM. usage: hostile_test.sh KEDYN EXAMPLES_DIR
set -u
kedyn=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
examples=$(cd "$2" && pwd)
. "$(dirname "$0")/lib.sh"
json_ok() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
cd "$tmp" || exit 1

# ---- gnuplot: a title with newlines cannot add commands to a script ------------------
sed 's/^title:.*/title: "x\\nsystem(\\"touch pwned\\")\\n# `touch pwned` @x"/' "$examples/rotating_bar.yaml" >gp.yaml
"$kedyn" run gp.yaml -o gp --quiet >/dev/null 2>&1
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

# ---- names: CSV separators rejected at load, located; path parts and markup contained ----
sed 's/name: rod$/name: "t,rod"/; s/body: rod,/body: "t,rod",/' "$examples/cantilever.yaml" >comma.yaml
"$kedyn" run comma.yaml -o comma --quiet >/dev/null 2>comma.err; code=$?
check "comma in a name: exit 1" test $code -eq 1
check "comma in a name: located" grep -q "^comma.yaml:10:[0-9]*: error: body 't,rod': a name" comma.err
check "comma in a name: nothing written" test ! -e comma
sed 's/name: rod$/name: "a\\nb"/; s/body: rod,/body: "a\\nb",/' "$examples/cantilever.yaml" >nl.yaml
"$kedyn" check nl.yaml >/dev/null 2>nl.err; code=$?
check "newline in a name: exit 1" test $code -eq 1
check "newline in a name: located" grep -q "^nl.yaml:10:[0-9]*: error: body 'a.b': a name" nl.err
sed "s/name: jA,/name: 'j\"A',/" "$examples/slider_crank_elastic.yaml" >quote.yaml
"$kedyn" check quote.yaml >/dev/null 2>quote.err; code=$?
check "quote in a joint name: located" grep -q "^quote.yaml:20:[0-9]*: error: joint 'j\"A': a name" quote.err
# path separators, dots and markup in every kind of name: the files stay in OUTDIR
mkdir -p names/out
sed "s#name: rod,#name: '../../../x/<b>rod</b>',#; s#\[crank, rod\]#[crank, '../../../x/<b>rod</b>']#; s#\[rod, slider\]#['../../../x/<b>rod</b>', slider]#; s#{O: \[0, 0\], A:#{'/etc/O': [0, 0], A:#; s#points: \[O, O\]#points: [O, '/etc/O']#; s#name: jB,#name: '..',#" \
  "$examples/slider_crank_elastic.yaml" >names/names.yaml
(cd names && "$kedyn" run names.yaml -o out --quiet --report >/dev/null 2>&1); code=$?
check "hostile names run" test $code -eq 0
check "hostile names: nothing outside OUTDIR" test "$(cd names && find . -path ./out -prune -o -print | sort | tr '\n' ' ')" = ". ./names.yaml "
check "hostile names: summary.json is JSON" json_ok names/out/summary.json
check "hostile names: no directory made in OUTDIR" test -z "$(find names/out -mindepth 1 -type d ! -name figures)"
python3 - names/out <<'PY' || { fail=$((fail + 1)); echo "FAIL: hostile names: every CSV has one column per header field"; }
import csv, glob, sys
for path in glob.glob(sys.argv[1] + "/*.csv"):
    rows = list(csv.reader(open(path)))
    assert all(len(r) == len(rows[0]) for r in rows), path
PY
pass=$((pass + 1))
python3 - names/out/report.html <<'PY' || { fail=$((fail + 1)); echo "FAIL: hostile names: no markup in report.html"; }
import sys
html = open(sys.argv[1], encoding="utf-8").read()
assert "<b>rod</b>" not in html and html.count("<script") == 2
PY
pass=$((pass + 1))

# ---- -o "": a usage error, not an uninitialised read -------------------------------------
"$kedyn" run "$examples/cantilever.yaml" -o "" --quiet >/dev/null 2>&1; code=$?
check "-o empty: exit 2" test $code -eq 2

# ---- temporary names: a symbolic link planted there is never followed --------------------
mkdir -p sym/out
echo "precious" >sym/victim
# the process keeps its PID through exec: plant links at every temporary name it could use
sh -c 'for f in summary.json modes.csv; do ln -s ../victim "sym/out/$f.tmp$$"; for n in 0 1 2 3 4 5 6 7; do
         ln -s ../victim "sym/out/$f.tmp$$.$n"; done; done
       exec "$0" run "$1" -o sym/out --quiet' "$kedyn" "$examples/cantilever.yaml" >/dev/null 2>&1; code=$?
check "planted temporary links: run exits 0" test $code -eq 0
check "planted temporary links: target untouched" test "$(cat sym/victim)" = "precious"
check "planted temporary links: summary complete" grep -q '"complete": true' sym/out/summary.json

# ---- SIGINT, SIGTERM: the rows so far kept, complete: false, no temporary file -----------
sed 's/t_end: 0.1,/t_end: 60,/' "$examples/rotating_bar.yaml" >long.yaml  # about 3 s, interrupted after 1
"$kedyn" run long.yaml -o int --quiet >/dev/null 2>int.err &
pid=$!; sleep 1; kill -INT $pid; wait $pid; code=$?
check "SIGINT: exit 130" test $code -eq 130
check "SIGINT: says so" grep -q "interrupted by SIGINT" int.err
check "SIGINT: summary.json is JSON" json_ok int/summary.json
check "SIGINT: complete false" grep -q '"complete": false' int/summary.json
check "SIGINT: rows kept, every one whole" python3 -c '
import csv, sys
rows = list(csv.reader(open("int/dynamics.csv")))
assert len(rows) > 10 and all(len(r) == len(rows[0]) for r in rows)'
check "SIGINT: no temporary file" test -z "$(ls int | grep tmp)"
sed 's/t_end: 0.0838, dt: 1.0e-5, steps: 400,/t_end: 8, dt: 1.0e-5, steps: 40000,/' "$examples/slider_crank_elastic.yaml" >long_links.yaml
"$kedyn" run long_links.yaml -o term --quiet >/dev/null 2>term.err &
pid=$!; sleep 1.5; kill -TERM $pid; wait $pid; code=$?
check "SIGTERM (elastic links): exit 143" test $code -eq 143
check "SIGTERM: complete false" grep -q '"complete": false' term/summary.json
check "SIGTERM: no temporary file" test -z "$(ls term | grep tmp)"

# a rigid mechanism's kinematics (a stopped row was reported as a write failure: rows discarded)
sed 's/steps: 100}/steps: 5000000}/; /inverse_dynamics/d' "$examples/slider_crank.yaml" >kin.yaml
"$kedyn" run kin.yaml -o kin --quiet --force >/dev/null 2>&1 &
pid=$!; sleep 1; kill -INT $pid; wait $pid; code=$?
check "SIGINT (kinematics): exit 130" test $code -eq 130
check "SIGINT (kinematics): rows kept" test "$(wc -l <kin/kinematics.csv 2>/dev/null || echo 0)" -gt 10
check "SIGINT (kinematics): interrupted in summary" grep -q '"message": "interrupted by signal 2' kin/summary.json

# an analysis that writes no row for long (modes_along_motion: an eigensolution per instant):
# a second SIGINT ends the process at once, temporary files removed, complete: false stays
sed 's/steps: 120,/steps: 60000,/' "$examples/slider_crank_elastic.yaml" >slow.yaml
"$kedyn" run slow.yaml -o slow --quiet >/dev/null 2>&1 &
pid=$!; sleep 1.5; kill -INT $pid; sleep 0.3; kill -INT $pid; wait $pid; code=$?
check "second SIGINT: exit 130" test $code -eq 130
check "second SIGINT: complete false" grep -q '"complete": false' slow/summary.json
check "second SIGINT: no temporary file" test -z "$(ls slow | grep tmp)"

# ---- one OUTDIR: a second run refused while the first runs; an old summary never survives --
"$kedyn" run long.yaml -o shared --quiet >/dev/null 2>&1 &
pid=$!; sleep 0.7
"$kedyn" run "$examples/cantilever.yaml" -o shared --quiet >/dev/null 2>second.err; code=$?
kill -INT $pid; wait $pid
check "second run into a busy OUTDIR: exit 1" test $code -eq 1
check "second run: says why" grep -q "error: output directory 'shared' is in use by another run" second.err
check "second run: wrote nothing" test ! -e shared/modes.csv -o -n "$(grep -l 'bar' shared/modes.csv)"
"$kedyn" run "$examples/cantilever.yaml" -o stale --quiet >/dev/null 2>&1
"$kedyn" run long.yaml -o stale --quiet >/dev/null 2>&1 &
pid=$!; sleep 0.7; kill -KILL $pid; wait $pid 2>/dev/null
check "killed re-run: the old complete summary is gone" python3 -c '
import json
s = json.load(open("stale/summary.json"))
assert s["model"] == "long.yaml" and s["complete"] is False, s'

# ---- resource limits: refused up front with the estimate, located; --force or force: true -
sed 's/elements: 20/elements: 1e8/' "$examples/cantilever.yaml" >huge.yaml
start=$(date +%s)
"$kedyn" check huge.yaml >/dev/null 2>huge.err; code=$?
check "1e8 elements: refused, exit 1" test $code -eq 1
check "1e8 elements: at once" test $(($(date +%s) - start)) -le 3
check "1e8 elements: located, with the estimate" grep -q "^huge.yaml:10:5: error: body 'rod': 1e+08 elements in the model need about 17 GB" huge.err
sed 's/dt: 1.0e-5,/dt: 1.0e-10, output_every: 1000,/' "$examples/rotating_bar.yaml" >steps.yaml
"$kedyn" run steps.yaml -o steps --quiet >/dev/null 2>steps.err; code=$?
check "1e9 steps: refused, exit 1" test $code -eq 1
check "1e9 steps: located, with the estimate" grep -q "^steps.yaml:23:5: error: dynamics: about 1e+09 time steps" steps.err
check "1e9 steps: nothing written" test ! -e steps
"$kedyn" check steps.yaml >/dev/null 2>&1; code=$?
check "1e9 steps: check refuses too" test $code -eq 1
"$kedyn" check steps.yaml --force >/dev/null 2>&1; code=$?
check "1e9 steps: check --force accepts" test $code -eq 0
{ echo "force: true"; cat steps.yaml; } >steps_forced.yaml
"$kedyn" check steps_forced.yaml >/dev/null 2>&1; code=$?
check "1e9 steps: force: true accepts" test $code -eq 0
# 5e7 steps (below the step limit), a row each: up to 12.6 GB estimated (6 values per node: the real rows of this bar are 122 B, 6.1 GB)
sed 's/t_end: 0.1,/t_end: 500,/' "$examples/rotating_bar.yaml" >csv.yaml
"$kedyn" check csv.yaml 2>&1 | grep -q "^csv.yaml:23:5: error: dynamics: about 5e+07 time steps (t_end / dt) and up to 12.6 GB of CSV output"
check "12 GB of CSV: refused with the size" test $? -eq 0
sed 's/steps: 120,/steps: 100000000,/' "$examples/slider_crank_elastic.yaml" >instants.yaml
"$kedyn" check instants.yaml >/dev/null 2>instants.err; code=$?
check "modes_along_motion 1e8 instants: refused" grep -q "^instants.yaml:27:5: error: modes_along_motion: 100000000 instants" instants.err
"$kedyn" compare steps.yaml -o cmp_steps --quiet >/dev/null 2>&1; code=$?
check "1e9 steps: compare refuses too, nothing written" test $code -eq 1 -a ! -e cmp_steps
# step counts no run could reach: refused even with force (were one step of 1 s, or 0 steps, status ok)
sed 's/dt: 1.0e-5/dt: 1e-300/' "$examples/rotating_bar.yaml" >dt300.yaml
"$kedyn" run dt300.yaml -o dt300 --quiet --force >/dev/null 2>dt300.err; code=$?
check "dt = 1e-300: exit 1 even forced" test $code -eq 1
check "dt = 1e-300: located" grep -q "^dt300.yaml:23:5: error: dynamics: 1e+299 time steps" dt300.err
check "dt = 1e-300: nothing written" test ! -e dt300
sed 's/dt: 0.00062831853071796, output_every: 10}/dt: 1e-300, output_every: 10}/' "$examples/four_bar_dynamics.yaml" >mech300.yaml
"$kedyn" run mech300.yaml -o mech300 --quiet --force >/dev/null 2>&1; code=$?
check "dt = 1e-300, rigid mechanism: exit 1" test $code -eq 1
sed 's/dt: 1.0e-5, steps: 400,/dt: 1.0e-300, steps: 400,/' "$examples/slider_crank_elastic.yaml" >link300.yaml
"$kedyn" run link300.yaml -o link300 --quiet --force >/dev/null 2>&1; code=$?
check "dt = 1e-300, one-way links: exit 1" test $code -eq 1

# ---- a diverging state: numerical failure (exit 3), rows before it kept, no inf/nan row -----
# the bar far above its critical speed: the energies overflow (t = 0.038 s) before the state
sed 's/law: {speed: 15}/law: {speed: 10000}/; s/t_end: 0.1,/t_end: 0.05,/; /type: modes/d' "$examples/rotating_bar.yaml" >over.yaml
"$kedyn" run over.yaml -o over --quiet >/dev/null 2>over.err; code=$?
check "over-critical bar: exit 3" test $code -eq 3
check "over-critical bar: says why" grep -q "error: at t = 0.038[0-9]* s: the state or its energy is no longer finite" over.err
check "over-critical bar: complete false" grep -q '"complete": false' over/summary.json
check "over-critical bar: rows kept" test "$(wc -l <over/dynamics.csv)" -gt 3000
check "over-critical bar: no inf or nan written" test -z "$(grep -i 'inf\|nan' over/dynamics.csv)"

# ---- kinematics of a mechanism without drivers: a model error, located, nothing written -----
sed '/^drivers:/,/initial: 0.3}/d' "$examples/slider_crank.yaml" >undriven.yaml
"$kedyn" run undriven.yaml -o undriven --quiet >/dev/null 2>undriven.err; code=$?
check "undriven kinematics: exit 1" test $code -eq 1
check "undriven kinematics: located" grep -q "^undriven.yaml:19:5: error: kinematics needs one driver per degree of freedom" undriven.err
check "undriven kinematics: nothing written" test ! -e undriven

# ---- a SUNDIALS failure: exit 3 with the flag's name (its string was leaked: 99 under ASan) --
sed 's/integrator: generalized-alpha, rho_inf: 1.0/integrator: cvode-bdf, rtol: 1e-30, atol: 1e-300/; /type: modes/d' \
  "$examples/rotating_bar.yaml" >acc.yaml
"$kedyn" run acc.yaml -o acc --quiet >/dev/null 2>acc.err; code=$?
check "CVODE failure: exit 3" test $code -eq 3
check "CVODE failure: the flag" grep -q "error: at t = 0 s: CVODE BDF failed: CV_TOO_MUCH_ACC" acc.err

# ---- the loader: a body twice in output.nodes; subnormal numbers; out of range -------------
sed 's/nodes: {bar: \[3, 7, 10\]}/nodes: {bar: [3], bar: [7]}/' "$examples/rotating_bar.yaml" >dup.yaml
"$kedyn" check dup.yaml >/dev/null 2>dup.err; code=$?
check "output.nodes duplicate: exit 1" test $code -eq 1
check "output.nodes duplicate: located" grep -q "^dup.yaml:25:21: error: body 'bar' is given twice in output nodes" dup.err
sed 's/rho_inf: 1.0/rho_inf: 5e-324/' "$examples/rotating_bar.yaml" >sub.yaml
"$kedyn" check sub.yaml >/dev/null 2>&1; code=$?
check "5e-324 is a number" test $code -eq 0
sed 's/rho_inf: 1.0/rho_inf: 1e999/' "$examples/rotating_bar.yaml" >ovf.yaml
"$kedyn" check ovf.yaml 2>&1 | grep -q "^ovf.yaml:23:[0-9]*: error: rho_inf is out of range (got '1e999'"
check "1e999: out of range" test $? -eq 0

# ---- plot reads only files of OUTDIR, whatever summary.json lists ---------------------------
if command -v gnuplot >/dev/null; then
  "$kedyn" run "$examples/cantilever.yaml" -o plotc --quiet >/dev/null 2>&1
  printf 'body,node,dof,x,y,z,mode_1\nsecret,1,u,0,0,0,1\n' >outside.csv
  sed -i 's#"files": \["modes.csv"\]#"files": ["../outside.csv"]#' plotc/summary.json
  "$kedyn" plot plotc >plotc.out 2>&1
  check "plot: a file outside OUTDIR skipped" grep -q "'../outside.csv' is not a file of the output directory" plotc.out
  check "plot: nothing drawn from it" test -z "$(ls plotc/figures | grep -i outside)"
fi

finish hostile_test
