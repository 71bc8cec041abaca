#!/bin/bash
# `kedyn check` of a planar closed loop built with spatial revolutes: 25 links and the ground on a
# circle (a 26-gon), every axis along z. 175 coordinates: the automatic choice takes the sparse QR
# of Phi_q^T (Phi_q is 155 x 175, undriven and with redundant rows). Closed forms: the spatial
# Gruebler-Kutzbach count 6 x 25 - 5 x 26 = 20, the planar mobility 3 x 25 - 2 x 26 = 23 (the loop
# stays in its plane), so 3 redundant rows: those of the closing joint that the rows before it
# already imply (its point's z and its two axis rows, in the dense route's naming order).
kedyn=$1
. "$(dirname "$0")/lib.sh"
awk 'BEGIN {
  n = 25; r = 1.0; pi = 3.14159265358979
  for (k = 0; k <= n; k++) { x[k] = r * cos(2 * pi * k / (n + 1)); y[k] = r * sin(2 * pi * k / (n + 1)) }
  print "kedyn: 1"; print "title: planar loop of 25 links on spatial revolutes"; print "spatial: true"
  print "bodies:"
  printf "  - {name: ground, type: ground, points: {V0: [%.15g, %.15g, 0], V%d: [%.15g, %.15g, 0]}}\n", x[0], y[0], n, x[n], y[n]
  for (k = 1; k <= n; k++) {
    dx = x[k] - x[k - 1]; dy = y[k] - y[k - 1]
    printf "  - {name: L%d, type: rigid, mass: 0.1, inertia: [1.0e-4, 1.0e-4, 1.0e-4, 0, 0, 0], com: [%.15g, %.15g, 0],", k, dx / 2, dy / 2
    printf " points: {A: [0, 0, 0], B: [%.15g, %.15g, 0]}, position: [%.15g, %.15g, 0]}\n", dx, dy, x[k - 1], y[k - 1]
  }
  print "joints:"
  printf "  - {name: J0, type: revolute, bodies: [ground, L1], points: [V0, A], axis: [0, 0, 1]}\n"
  for (k = 1; k < n; k++)
    printf "  - {name: J%d, type: revolute, bodies: [L%d, L%d], points: [B, A], axis: [0, 0, 1]}\n", k, k, k + 1
  printf "  - {name: J%d, type: revolute, bodies: [L%d, ground], points: [B, V%d], axis: [0, 0, 1]}\n", n, n, n
  print "analyses:"; print "  - {type: kinematics, t_end: 0.1, steps: 1}"
}' > "$tmp/loop.yaml"
out=$("$kedyn" check "$tmp/loop.yaml" 2>&1) || { echo "FAIL: check exit $?: $out"; exit 1; }
echo "$out"
echo "$out" | grep -q "175 coordinates" || { echo "FAIL: coordinates"; exit 1; }
echo "$out" | grep -q "Gruebler-Kutzbach 20, DOF 23 (rank 152), undriven 23, redundant 3: J25 (revolute, row 3), J25 (revolute, row 4), J25 (revolute, row 5)" \
  || { echo "FAIL: mobility"; exit 1; }
echo PASS
