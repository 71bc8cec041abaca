#!/usr/bin/env bash
# The flapping plate (examples/spatial_plate_flapper.yaml: an RSSR four-bar whose output rocker is
# a shell link) end to end from the model file:
#   - `kedyn run` writes dynamics.csv with the tip set's u .. rz and the joints' rigid forces,
#     modes_along_motion.csv and summary.json (one link, its deflection and frequency ranges);
#   - the plate's first frequency along the slow flapping lies between the cantilever bounds of
#     the strip 0.3 x 0.06 x 0.0015 m: the beam, 3.5160 sqrt(E t^2 / (12 rho)) / L^2 (free
#     anticlastic bending), and the plate strip in cylindrical bending, the same over
#     sqrt(1 - nu^2) (independent closed forms; the hinge's rotation, a few rad/s, changes omega^2
#     by about 1e-3);
#   - the largest deflection is positive and small (below 5 mm).
# usage: spatial_plate_cli_test.sh KEDYN EXAMPLES_DIR
set -u
kedyn=$1
examples=$2
. "$(dirname "$0")/lib.sh"
"$kedyn" run "$examples/spatial_plate_flapper.yaml" -o "$tmp/out" > "$tmp/log" 2>&1
check "run exits 0" test $? -eq 0
check "dynamics.csv" test -s "$tmp/out/dynamics.csv"
check "modes_along_motion.csv" test -s "$tmp/out/modes_along_motion.csv"
head -1 "$tmp/out/dynamics.csv" > "$tmp/head"
check "tip set columns" grep -q '^t,wing\.76\.u,wing\.76\.v,wing\.76\.w,wing\.76\.rx,wing\.76\.ry,wing\.76\.rz,wing\.77\.u' "$tmp/head"
check "five tip nodes" test "$(tr ',' '\n' < "$tmp/head" | grep -c '^wing\.[0-9]*\.w$')" -eq 5
check "joint forces" grep -q ',BC\.Fx,BC\.Fy,BC\.Fz,' "$tmp/head"
check "summary: one link" grep -q '"links": 1' "$tmp/out/summary.json"
# omega_1 range from the summary against the cantilever bounds
read -r lo hi < <(python3 -c "
import json, sys
s = json.load(open('$tmp/out/summary.json'))
a = [x for x in s['analyses'] if x['type'] == 'modes_along_motion'][0]
print(a['wing']['omega_min_rad_s'][0], a['wing']['omega_max_rad_s'][0])")
read -r beam plate < <(python3 -c "
from math import sqrt
E, rho, nu, t, L = 70e9, 2700, 0.33, 0.0015, 0.3
b = 3.5160 * sqrt(E * t * t / (12 * rho)) / L ** 2
print(b, b / sqrt(1 - nu * nu))")
echo "omega_1 along the motion $lo .. $hi rad/s; bounds: beam $beam, plate strip $plate"
check "omega_1 between the beam and the plate-strip cantilever" python3 -c "import sys; sys.exit(not ($beam < $lo <= $hi < $plate))"
check "max deflection below 5 mm and above 0" python3 -c "
import json, sys
s = json.load(open('$tmp/out/summary.json'))
d = [x for x in s['analyses'] if x['type'] == 'dynamics'][0]['max_deflection_m']
sys.exit(not (0 < d < 5e-3))"
finish spatial_plate_cli_test
