#!/usr/bin/env bash
# Stresses of a two-way shell link end to end from a model file (theory.md sec. 22, SL5 on the
# elastic coordinates of SL6): a steel strip L x b x t = 0.5 x 0.04 x 0.004 m (nu = 0, CST + DKT,
# 12 x 2 cells) welded to the ground at its root edge, in gravity normal to its plane, started from
# its quasi-static state (`initial: static`) and left at rest for 20 rk4 steps. Beam statics: the
# root moment per unit width M(x) = rho g t (L - x)^2 / 2, the surface stress 6 M / t^2, largest at
# the root element's centre x_c = L / (3 nx) (the triangle of a root cell nearer the root):
#   - dynamics.csv has `strip.sigma_max` (the output set is the root: its elements) and no
#     `.N, .My, .Mz, .sigma` columns; its value at every row is 6 M(x_c) / t^2 within 1.2e-3 (SL8 on:
#     its membrane strain in the stresses);
#   - summary.json max_stress_pa is the largest of the column (to its 6 digits) (every element's largest is a root
#     element's), max_stress_at names an element of the strip.
# usage: ffr3d_shell_stress_cli_test.sh KEDYN
set -u
kedyn=$1
. "$(dirname "$0")/lib.sh"
cat > "$tmp/strip.yaml" <<YAML
kedyn: 1
title: strip at rest in gravity (a two-way shell link)
spatial: true
materials:
  steel: {E: 210e9, rho: 7800, nu: 0}
bodies:
  - {name: ground, type: ground, points: {O: [0, 0.02, 0]}}
  - name: strip
    type: plate
    theory: shell
    interpolation: dkt
    material: steel
    thickness: 0.004
    mesh: {rectangle: [0.5, 0.04], divisions: [12, 2]}
    node_sets:
      root: {x: 0}
    support: root
    output: root
    points: {O: [0, 0.02, 0]}
joints:
  - {name: O, type: fixed, bodies: [ground, strip], points: [O, O], axis: [0, 0, 1]}
forces:
  - {type: gravity, g: [0, 0, -9.81]}
analyses:
  - {type: dynamics, coupling: two-way, t_end: 4.0e-5, dt: 2.0e-6, output_every: 4, initial: static}
YAML
"$kedyn" run "$tmp/strip.yaml" -o "$tmp/out" > "$tmp/log" 2>&1
check "run exits 0" test $? -eq 0
check "sigma_max column" grep -q ',strip\.sigma_max' "$tmp/out/dynamics.csv"
out=$(python3 -c "
import csv, json
rows = list(csv.DictReader(open('$tmp/out/dynamics.csv')))
gone = [h for h in rows[0] if h.startswith('strip.') and h.split('.')[-1] in ('N', 'My', 'Mz', 'sigma')]
assert not gone, gone
rho, g, t, L, nx = 7800.0, 9.81, 0.004, 0.5, 12
xc = L / (3 * nx)
ref = 6 * rho * g * t * (L - xc) ** 2 / 2 / t ** 2
col = [float(r['strip.sigma_max']) for r in rows]
s = json.load(open('$tmp/out/summary.json'))
d = [x for x in s['analyses'] if x['type'] == 'dynamics'][0]
assert d['max_stress_at'].startswith('strip element '), d['max_stress_at']
assert abs(max(col) - d['max_stress_pa']) <= 1e-5 * ref, (max(col), d['max_stress_pa'])
assert len(col) >= 5
print('%d rows, sigma_max %.6e .. %.6e Pa, 6 M / t^2 = %.6e Pa: off by %.3e; max_stress_pa %.6e at %s' % (
    len(col), min(col), max(col), ref, max(abs(c / ref - 1) for c in col), d['max_stress_pa'], d['max_stress_at']))
print(max(abs(c / ref - 1) for c in col))" 2> "$tmp/err")
check "dynamics.csv and summary.json" test -n "$out"
[ -n "$out" ] || cat "$tmp/err" "$tmp/log"
echo "${out%$'\n'*}"
rel=${out##*$'\n'}
rel=${rel:-1}
check "sigma_max against 6 M / t^2 at the root element" python3 -c "import sys; sys.exit(not ($rel < 1.2e-3))"
finish ffr3d_shell_stress_cli_test
