#!/usr/bin/env bash
# Stresses of a shell link end to end from a model file (theory.md sec. 22, SL5): a steel strip
# L x b x t = 0.5 x 0.04 x 0.004 m (nu = 0), clamped along its root edge x = 0 to a body turning
# at a constant Omega = 100 rad/s about the plate's normal through the middle of the root. The
# centrifugal load rho t b Omega^2 x gives the membrane stress sigma_x(x) = rho Omega^2 (L^2 - x^2)
# / 2 (nu = 0; the lateral load rho Omega^2 y and the softening rho Omega^2 L^2 / E change it by
# about 1e-4: docs/validation.md), largest at the root elements' centres x_c = L / (2 nx):
#   - summary.json max_stress_pa against sigma_x(x_c) within 3e-3 on 10 x 2 and 20 x 2 MITC4, the
#     error falling with refinement; max_stress_at names the strip's element 1 (a root element);
#   - dynamics.csv has `strip.sigma_max` (the output set is the root: its elements), whose largest
#     value is the summary's.
# usage: spatial_plate_stress_cli_test.sh KEDYN
set -u
kedyn=$1
. "$(dirname "$0")/lib.sh"
prev=1
for nx in 10 20; do
  cat > "$tmp/spin$nx.yaml" <<YAML
kedyn: 1
title: spinning strip
spatial: true
materials:
  steel: {E: 210e9, rho: 7800, nu: 0}
bodies:
  - {name: ground, type: ground, points: {O: [0, 0, 0]}}
  - name: strip
    type: plate
    material: steel
    thickness: 0.004
    mesh: {rectangle: [0.5, 0.04], divisions: [$nx, 2]}
    node_sets:
      root: {x: 0}
    support: root
    output: root
    points: {O: [0, 0.02, 0]}
    position: [0, -0.02, 0]
joints:
  - {name: O, type: revolute, bodies: [ground, strip], points: [O, O], axis: [0, 0, 1]}
drivers:
  - {joint: O, law: {speed: 100.0}}
analyses:
  - {type: dynamics, t_end: 0.02, dt: 2.0e-4, steps: 20, output_every: 10}
YAML
  "$kedyn" run "$tmp/spin$nx.yaml" -o "$tmp/out$nx" > "$tmp/log$nx" 2>&1
  check "run $nx exits 0" test $? -eq 0
  check "sigma_max column ($nx)" grep -q ',strip\.sigma_max' "$tmp/out$nx/dynamics.csv"
  rel=$(python3 -c "
import csv, json
s = json.load(open('$tmp/out$nx/summary.json'))
d = [x for x in s['analyses'] if x['type'] == 'dynamics'][0]
rho, W, L = 7800.0, 100.0, 0.5
xc = L / (2 * $nx)
ref = rho * W * W * (L * L - xc * xc) / 2
col = max(float(r['strip.sigma_max']) for r in csv.DictReader(open('$tmp/out$nx/dynamics.csv')))
assert d['max_stress_at'].startswith('strip element 1 at'), d['max_stress_at']
assert abs(col - d['max_stress_pa']) <= 1e-5 * ref, (col, d['max_stress_pa'])
print(abs(d['max_stress_pa'] / ref - 1))" 2> "$tmp/err$nx")
  check "summary and column ($nx)" test -n "$rel"
  rel=${rel:-1}
  echo "strip $nx x 2: max_stress_pa relative error $rel against rho Omega^2 (L^2 - x_c^2) / 2"
  check "max_stress_pa against the closed form ($nx)" python3 -c "import sys; sys.exit(not ($rel < 3e-3 and $rel < $prev))"
  prev=$rel
done
finish spatial_plate_stress_cli_test
