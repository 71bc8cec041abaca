#!/usr/bin/env bash
# End-to-end tests of the kedyn command line: exit codes, error format,
# output files. usage: cli_test.sh KEDYN MODELS_DIR
set -u
kedyn=$1
models=$2
examples=$(cd "$models/../../examples" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}

# --version, --help, usage errors
check "version" bash -c "'$kedyn' --version | grep -q '^kedyn [0-9]'"
check "help" bash -c "'$kedyn' --help | grep -q 'usage: kedyn'"
check "help run" bash -c "'$kedyn' help run | grep -q 'kedyn run MODEL.yaml'"
"$kedyn" frobnicate >/dev/null 2>&1; check "unknown command exits 2" test $? -eq 2
"$kedyn" run >/dev/null 2>&1; check "run without model exits 2" test $? -eq 2

# check: bodies, elements, nodes, DOF
out=$("$kedyn" check "$examples/cantilever.yaml"); code=$?
check "check exits 0" test $code -eq 0
check "check prints DOF" grep -q "^DOF: 63 (60 free, 3 fixed)" <<<"$out"
check "check prints elements" grep -q "^elements: 20" <<<"$out"
err=$("$kedyn" check "$examples/free_blade_3d.yaml" 2>&1 >/dev/null)
check "check warns of rigid-body modes" grep -q "free_blade_3d.yaml:[0-9]*:[0-9]*: warning: body 'blade' has no support" <<<"$err"

# run: summary.json last and complete, modes.csv, no temporary files
"$kedyn" run "$examples/cantilever.yaml" -o "$tmp/run" >"$tmp/run.txt"; code=$?
check "run exits 0" test $code -eq 0
check "summary complete" grep -q '"complete": true' "$tmp/run/summary.json"
check "summary omega" grep -q '"omega_rad_s": \[' "$tmp/run/summary.json"
check "summary frequency" grep -q '"frequency_hz": \[' "$tmp/run/summary.json"
check "modes.csv header" bash -c "head -1 '$tmp/run/modes.csv' | grep -q '^body,node,dof,x,y,z,mode_1,.*,mode_9$'"
check "modes.csv rows" test "$(wc -l <"$tmp/run/modes.csv")" -eq 64
check "no temporary files" test -z "$(ls "$tmp/run" | grep tmp)"
# The clamped rod's first frequency: Rayleigh, L = 0.5, d = 10 mm -> 1.8751^2/L^2 sqrt(EI/rho A)
# = 182.43 rad/s (rotary inertia changes it by < 1e-4).
check "first frequency" grep -q "^ *1 *182\.4" "$tmp/run.txt"

# a spinning blade: gyroscopic modes, Campbell diagram, stability map
"$kedyn" run "$examples/rotating_blade.yaml" -o "$tmp/blade" >"$tmp/blade.txt" 2>&1; code=$?
check "rotating run exits 0" test $code -eq 0
check "rotating summary complete" grep -q '"complete": true' "$tmp/blade/summary.json"
check "state-space modes" grep -q '"solver": "state-space"' "$tmp/blade/summary.json"
check "campbell.csv rows" test "$(wc -l <"$tmp/blade/campbell.csv")" -eq 7
check "stability.csv" grep -q '^0.1,0.3,inf$' "$tmp/blade/stability.csv"
"$kedyn" run "$examples/rotating_blade_no_stiffening.yaml" -o "$tmp/blade2" >/dev/null 2>"$tmp/blade2.err"
check "spurious divergence reported" grep -q "warning: unstable from 1000 rad/s" "$tmp/blade2.err"

# transient response: the seed 001 bar; a diverging integration keeps its history and exits 3
"$kedyn" run "$examples/rotating_bar.yaml" -o "$tmp/bar" >/dev/null 2>&1; code=$?
check "dynamics run exits 0" test $code -eq 0
check "dynamics header" bash -c "head -1 '$tmp/bar/dynamics.csv' | grep -q '^t,bar.3.u,bar.7.u,bar.10.u,E_kinetic,E_strain,W_other,E_balance$'"
check "dynamics rows" test "$(wc -l <"$tmp/bar/dynamics.csv")" -eq 10002
"$kedyn" run "$models/diverging.yaml" -o "$tmp/div" >/dev/null 2>"$tmp/div.err"; code=$?
check "divergence exits 3" test $code -eq 3
check "divergence names time and cause" grep -q "at t = 0.071 s: the solution is no longer finite" "$tmp/div.err"
check "divergence summary incomplete" grep -q '"complete": false' "$tmp/div/summary.json"
check "divergence keeps history" test "$(wc -l <"$tmp/div/dynamics.csv")" -gt 50
check "divergence leaves no temporary file" test -z "$(ls "$tmp/div" | grep tmp)"

# initial conditions: a mode shape with 1 mm at the tip, nodal values
"$kedyn" run "$examples/free_vibration.yaml" -o "$tmp/free" >/dev/null 2>&1; code=$?
check "mode-shape start exits 0" test $code -eq 0
check "mode-shape start: tip at 1 mm" bash -c "sed -n 2p '$tmp/free/dynamics.csv' | cut -d, -f6 | grep -q '^1.0000000000e-03$'"
check "mode-shape start: half period later -1 mm" bash -c "awk -F, 'NR > 2 && \$6 < m { m = \$6 } END { exit !(m < -0.99999e-3 && m > -1.00001e-3) }' m=0 '$tmp/free/dynamics.csv'"
sed 's/initial: {mode: 1, amplitude: 1.0e-3}/initial: {q: [{body: rod, node: 21, dof: v, value: 2.0e-3}], qdot: [{body: rod, node: 11, dof: rz, value: 0.5}]}/' \
  "$examples/free_vibration.yaml" >"$tmp/iv.yaml"
"$kedyn" run "$tmp/iv.yaml" -o "$tmp/iv" >/dev/null 2>&1; code=$?
check "nodal initial values exit 0" test $code -eq 0
check "nodal initial q" bash -c "sed -n 2p '$tmp/iv/dynamics.csv' | cut -d, -f6 | grep -q '^2.0000000000e-03$'"

# a tabulated 3D pose (CSV) drives the same response as the analytic rotation
"$kedyn" run "$examples/spin_up_pose_table.yaml" -o "$tmp/pose" >/dev/null 2>&1; code=$?
check "pose table run exits 0" test $code -eq 0
sed 's/pose: {file: spin_up_pose.csv}/rotation: {axis: z, law: {spin_up: {omega: 40, T: 0.4}}}/' \
  "$examples/spin_up_pose_table.yaml" >"$tmp/rot.yaml"
"$kedyn" run "$tmp/rot.yaml" -o "$tmp/rot" >/dev/null 2>&1
check "pose table matches the rotation law" bash -c "paste -d, '$tmp/pose/dynamics.csv' '$tmp/rot/dynamics.csv' | \
  awk -F, 'NR > 1 { d = \$3 - \$7; if (d < 0) d = -d; if (d > m) m = d } END { exit !(NR > 100 && m < 1e-6) }' m=0"
check "3D pose (precessing hub) runs, energy balance closes" bash -c "'$kedyn' run '$examples/precessing_arm.yaml' -o '$tmp/prec' >/dev/null 2>&1 && \
  awk -F, 'NR > 1 { e = \$8 + \$9; if (e > m) m = e; b = \$11 < 0 ? -\$11 : \$11; if (b > bm) bm = b } END { exit !(m > 1e-3 && bm < 1e-6 * m) }' m=0 bm=0 '$tmp/prec/dynamics.csv'"

# Campbell curves follow their modes through a crossing (MAC tracking)
"$kedyn" run "$examples/blade_crossing.yaml" -o "$tmp/cross" >/dev/null 2>&1; code=$?
check "crossing run exits 0" test $code -eq 0
check "curves cross instead of swapping" bash -c "awk -F, 'NR == 2 { a = (\$2 < \$3) } END { exit !(a && \$2 > \$3) }' '$tmp/cross/campbell.csv'"
check "summary tracking MAC" grep -q '"tracking_mac_min": \[1, 0.99' "$tmp/cross/summary.json"

# parameter sweeps: one result set per value, runs described in summary.json
"$kedyn" run "$examples/rotating_bar_studies.yaml" -o "$tmp/sweep" >/dev/null 2>&1; code=$?
check "sweep run exits 0" test $code -eq 0
check "sweep files" test -s "$tmp/sweep/sweep_v4_dynamics.csv" -a -s "$tmp/sweep/sweep2_v3_dynamics.csv" -a -s "$tmp/sweep/sweep3_v3_dynamics.csv"
check "sweep summary" grep -q '"set": \["sections.bar.A", "materials.bar.rho"\]' "$tmp/sweep/summary.json"
check "sweep run value" grep -q '"value": \[300\]' "$tmp/sweep/summary.json"
sed 's/set: materials.bar.rho/set: materials.bar.E/; s/values: \[50000, 25000, 12500\]/values: [210e9, -1]/' \
  "$examples/rotating_bar_studies.yaml" >"$tmp/sweep_bad.yaml"
"$kedyn" run "$tmp/sweep_bad.yaml" -o "$tmp/sweep_bad" >/dev/null 2>"$tmp/sweep_bad.err"; code=$?
check "sweep with a bad value exits 1" test $code -eq 1
check "sweep names the bad value" grep -Eq "sweep_bad.yaml:[0-9]+:[0-9]+: error: sweep: materials.bar.E = -1: .*E must be positive" "$tmp/sweep_bad.err"
check "sweep with a bad value runs nothing" test ! -e "$tmp/sweep_bad"

# cubic versus quintic example: a sweep of Campbell diagrams over the hub
"$kedyn" run "$examples/rotating_cantilever_hub.yaml" -o "$tmp/hub" >/dev/null 2>&1; code=$?
check "hub sweep exits 0" test $code -eq 0
check "hub sweep: flapwise at lam 2, delta 0.5" grep -q '^50.9175,102.59[0-9]*,114.545[0-9]*,' "$tmp/hub/sweep_v2_campbell.csv"

# bad models: FILE:LINE:COL: error: ..., exit 1, no output directory
for f in "$models"/bad_*.yaml; do
  [ -e "$f" ] || continue
  name=$(basename "$f")
  msg=$("$kedyn" run "$f" -o "$tmp/bad_$name" 2>&1 >/dev/null); code=$?
  check "$name exits 1" test $code -eq 1
  check "$name message format" grep -Eq "^$f:[0-9]+:[0-9]+: error: .+" <<<"$msg"
  check "$name leaves no output" test ! -e "$tmp/bad_$name"
done
msg=$("$kedyn" run "$tmp/no_such_model.yaml" 2>&1); code=$?
check "missing model exits 1" test $code -eq 1
check "missing model names the file" grep -q "no_such_model.yaml" <<<"$msg"

# demo: no files needed
(cd "$tmp" && "$kedyn" demo -o demo >demo.txt 2>&1); code=$?
check "demo exits 0" test $code -eq 0
check "demo summary" grep -q '"complete": true' "$tmp/demo/cubic/summary.json"
check "demo quintic" test -s "$tmp/demo/quintic/modes.csv"

echo "$pass passed, $fail failed"
test $fail -eq 0
