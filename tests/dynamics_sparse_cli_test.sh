#!/bin/bash
# `kedyn run` of the small plate's dynamics (tests/models/plate_dynamics.yaml with damping, a sine
# load and the energy columns) on the band route and on the sparse route (threshold lowered by
# KEDYN_DYNAMICS_SPARSE_MIN_DOF): the same files, every CSV column within 1e-9 of its largest value
# (columns of round-off size by symmetry, e.g. the centre's rotations, within 1e-9 of the largest
# displacement; the energy columns within 1e-9 of the largest energy), the same files (VTK frames).
kedyn=$1
models=$2
. "$(dirname "$0")/lib.sh"
fail=0
sed -e 's/^analyses:/damping:\n  - {body: plate, rayleigh: {alpha: 3.0, beta: 2.0e-6}}\nanalyses:/' \
    -e 's/{type: dynamics, t_end: 0.002, dt: 2e-5}/{type: dynamics, t_end: 0.002, dt: 2e-5, energy: true}/' \
    -e 's/value: 1.0}/value: {sine: {amplitude: 1.0, omega: 3000}}}/' "$models/plate_dynamics.yaml" > "$tmp/m.yaml"
grep -q "energy: true" "$tmp/m.yaml" && grep -q rayleigh "$tmp/m.yaml" || { echo "FAIL: model edit"; exit 1; }
"$kedyn" run "$tmp/m.yaml" -o "$tmp/band" >/dev/null 2>&1 || { echo "FAIL: band run"; exit 1; }
KEDYN_DYNAMICS_SPARSE_MIN_DOF=1 "$kedyn" run "$tmp/m.yaml" -o "$tmp/sparse" >/dev/null 2>&1 || { echo "FAIL: sparse run"; exit 1; }
[ "$(ls "$tmp/band")" = "$(ls "$tmp/sparse")" ] || { echo "FAIL: different files"; fail=1; }
[ "$(head -1 "$tmp/band/dynamics.csv")" = "$(head -1 "$tmp/sparse/dynamics.csv")" ] || { echo "FAIL: header"; fail=1; }
paste -d, "$tmp/band/dynamics.csv" "$tmp/sparse/dynamics.csv" | awk -F, '
  NR == 1 { nc = NF / 2; next }
  { rows++; for (j = 1; j <= nc; j++) { a = $j + 0; b = $(j + nc) + 0; d = a - b; if (d < 0) d = -d;
      if (a < 0) a = -a; if (a > mx[j]) mx[j] = a; if (d > dd[j]) dd[j] = d } }
  END { if (rows < 100) { print "FAIL: rows " rows; exit 1 }
        big = 0; for (j = 2; j <= 4; j++) if (mx[j] > big) big = mx[j]
        eb = 0; for (j = 5; j <= nc; j++) if (mx[j] > eb) eb = mx[j]
        if (nc != 8 || big == 0 || eb == 0) { print "FAIL: columns " nc; exit 1 }
        bad = 0
        for (j = 1; j <= nc; j++) { s = mx[j]; if (j >= 2 && j <= 4 && s < big) s = big; if (j >= 5) s = eb
          if (dd[j] > 1e-9 * s) { print "FAIL: column " j " differs by " dd[j] " (scale " s ")"; bad = 1 } }
        exit bad }' || fail=1
[ "$fail" = 0 ] && echo "ok: band and sparse routes agree"
exit $fail
