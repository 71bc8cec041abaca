#!/usr/bin/env bash
# Elastic joint forces (`JOINT.dF*`) and `modes: N` of a plate link end to end from model files
# (theory.md sec. 22, SL7). A steel strip 0.5 x 0.04 x 0.004 m (nu = 0) clamped along its root
# edge (the `support` set) to its frame, on a revolute joint about y at the middle of the root,
# driven by theta = -A cos(w t): at rest at t = 0 with eps = A w^2 = 20 rad/s^2, the link starting
# from its quasi-static state:
#   - at t = 0 the elastic joint force is the inertia of the deflected mass, eps x (w e_z), along
#     the strip: |dF| = rho t b eps 13 c L^6 / (360 E I), c = rho t b eps (the cantilever's
#     deflection under q(x) = c x integrated), perpendicular to the rigid joint force (the root
#     shear rho t b eps L^2 / 2, normal to the strip);
#   - `modes: N` for N = 8, 16, 32, 64: the largest difference of the elastic joint force (by
#     mode acceleration, SL7) from the full link's over the run below 1e-4 of its largest value
#     at every N (measured 5.8e-5: the full link's support rows leave out the pre-stress share);
#     the tip deflection within 1e-6 of the full link's (with the static correction);
#   - the flapper (examples/spatial_plate_flapper.yaml) reports the elastic force of its hinge D
#     (the joint at the support) and none at the coupler's node C;
#   - bad input: `static_correction` without `modes` on a plate, `modes: 0`: a located error,
#     exit 1, nothing written.
# usage: spatial_plate_joint_cli_test.sh KEDYN EXAMPLES_DIR
set -u
kedyn=$1
examples=$2
. "$(dirname "$0")/lib.sh"
model() {  # model FILE EXTRA_KEYS (lines of the strip body, indented by four spaces)
  cat > "$1" <<YAML
kedyn: 1
title: a strip link swung about y
spatial: true
materials:
  steel: {E: 210e9, rho: 7800, nu: 0}
bodies:
  - {name: ground, type: ground, points: {O: [0, 0, 0]}}
  - name: strip
    type: plate
    material: steel
    thickness: 0.004
    mesh: {rectangle: [0.5, 0.04], divisions: [20, 2]}
    node_sets:
      root: {x: 0}
      tip: {x: 0.5}
    support: root
    output: tip
    points: {O: [0, 0.02, 0]}
    position: [0, -0.02, 0]
$2
joints:
  - {name: O, type: revolute, bodies: [ground, strip], points: [O, O], axis: [0, 1, 0]}
drivers:
  - {joint: O, law: {sine: {amplitude: 0.05, omega: 20, phase: -1.5707963267948966}}}
analyses:
  - {type: dynamics, t_end: 0.2, dt: 2.0e-4, steps: 100, output_every: 10, integrator: newmark}
YAML
}
model "$tmp/full.yaml" ""
"$kedyn" run "$tmp/full.yaml" -o "$tmp/full" > "$tmp/log" 2>&1
check "full run exits 0" test $? -eq 0
check "elastic joint force columns" grep -q ',O\.dFx,O\.dFy,O\.dFz$' <(head -1 "$tmp/full/dynamics.csv")
check "t = 0: elastic force against the closed form, perpendicular to the rigid one" python3 - "$tmp/full/dynamics.csv" <<'PY'
import csv, math, sys
r = next(csv.DictReader(open(sys.argv[1])))
E, rho, L, b, t, eps = 210e9, 7800, 0.5, 0.04, 0.004, 0.05 * 20 ** 2
c, I = rho * t * b * eps, b * t ** 3 / 12
ref = c * 13 * c * L ** 6 / (360 * E * I)
F = [float(r['O.F' + k]) for k in 'xyz']
dF = [float(r['O.dF' + k]) for k in 'xyz']
nF, ndF = math.sqrt(sum(x * x for x in F)), math.sqrt(sum(x * x for x in dF))
cos = sum(x * y for x, y in zip(F, dF)) / (nF * ndF)
print('t = 0: |dF| = %.6e N against %.6e N (rel %.2e); |F| = %.6e N against rho t b eps L^2 / 2 = %.6e N; '
      'cos(F, dF) = %.1e' % (ndF, ref, abs(ndF / ref - 1), nF, c * L * L / 2, cos))
sys.exit(not (abs(ndF / ref - 1) < 1e-3 and abs(nF / (c * L * L / 2) - 1) < 1e-9 and abs(cos) < 1e-3))
PY
for n in 8 16 32 64; do
  model "$tmp/m$n.yaml" "    modes: $n"
  "$kedyn" run "$tmp/m$n.yaml" -o "$tmp/m$n" > "$tmp/log" 2>&1
  check "modes: $n run exits 0" test $? -eq 0
done
check "modes: N converging to the full link" python3 - "$tmp" <<'PY'
import csv, math, sys
d = sys.argv[1]
def rows(n): return list(csv.DictReader(open('%s/%s/dynamics.csv' % (d, n))))
full = rows('full')
def mag(r): return math.sqrt(sum(float(r['O.dF' + k]) ** 2 for k in 'xyz'))
fmax = max(mag(r) for r in full)
wmax = max(abs(float(r['strip.62.w'])) for r in full)
prev, ok = math.inf, True
for n in (8, 16, 32, 64):
    m = rows('m%d' % n)
    e = max(math.sqrt(sum((float(a['O.dF' + k]) - float(b['O.dF' + k])) ** 2 for k in 'xyz')) for a, b in zip(full, m)) / fmax
    ew = max(abs(float(a['strip.62.w']) - float(b['strip.62.w'])) for a, b in zip(full, m)) / wmax
    print('modes %2d: elastic joint force %.2e, tip w %.2e of the full link\'s largest' % (n, e, ew))
    ok = ok and len(m) == len(full) and e < 1e-4 and ew < 1e-6
    prev = e
sys.exit(not (ok and prev < 1e-3))
PY
"$kedyn" run "$examples/spatial_plate_flapper.yaml" -o "$tmp/flap" > "$tmp/log" 2>&1
check "flapper exits 0" test $? -eq 0
check "flapper: the hinge D carries an elastic force, the coupler's node none" python3 - "$tmp/flap" <<'PY'
import csv, json, sys
r = list(csv.DictReader(open(sys.argv[1] + '/dynamics.csv')))
d = max(abs(float(x['D.dF' + k])) for x in r for k in 'xyz')
bc = max(abs(float(x['BC.dF' + k])) for x in r for k in 'xyz')
s = json.load(open(sys.argv[1] + '/summary.json'))
m = [a for a in s['analyses'] if a['type'] == 'dynamics'][0]['max_elastic_joint_force_n']
print('flapper: largest |D.dF*| %.3e N, |BC.dF*| %.1e N, summary %.3e N' % (d, bc, m))
sys.exit(not (d > 1e-4 and bc == 0 and m >= d))
PY
model "$tmp/bad1.yaml" "    static_correction: none"
"$kedyn" run "$tmp/bad1.yaml" -o "$tmp/bad1" > "$tmp/err1" 2>&1
check "static_correction without modes: exit 1" test $? -eq 1
check "static_correction without modes: located" grep -q 'bad1.yaml:[0-9]*:[0-9]*: error: static_correction applies with modes' "$tmp/err1"
check "nothing written" test ! -e "$tmp/bad1"
model "$tmp/bad2.yaml" "    modes: 0"
"$kedyn" run "$tmp/bad2.yaml" -o "$tmp/bad2" > "$tmp/err2" 2>&1
check "modes: 0: exit 1, located" grep -q 'bad2.yaml:[0-9]*:[0-9]*: error: modes must be a whole number' "$tmp/err2"
check "modes: 0: nothing written" test ! -e "$tmp/bad2"
finish spatial_plate_joint_cli_test
