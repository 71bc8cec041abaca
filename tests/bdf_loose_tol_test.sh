#!/usr/bin/env bash
# cvode-bdf at a loose tolerance (rtol 1e-3, atol 1e-4) on closed-loop spatial mechanisms, end to
# end from model files (docs/theory.md sec. 23, "Loose tolerances"), each run against a reference
# by a different formulation and integrator (IDA's index-2 DAE at rtol 1e-10) in the same file:
#   - the rigid wiper (examples/wiper_spatial.yaml, driven by its crank record) and the free RSSR
#     loop (examples/spatial_rssr_free.yaml, conservative) run to t_end with either corrector and
#     either stabilisation (exit 0);
#   - with Baumgarte's terms the drift stays below 3 (rtol (1 + |q|_inf) + atol), of the order of
#     the accuracy the tolerances ask for (the run stops at 10 times it); with projection the output states (CVODE's interpolant, projected) keep
#     the constraints to round-off;
#   - positions, joint forces and the kinetic energy against the IDA run, and the RSSR's energy
#     balance, within the bounds measured (docs/validation.md);
#   - Newton's Jacobians reused until a convergence failure: on the non-stiff RSSR at rtol 1e-6
#     Newton evaluates the accelerations no more often than the fixed-point corrector, and its
#     corrector's convergence test keeps the drift within the limit although the Jacobian of the
#     first steps is kept for 0.04 s.
# usage: bdf_loose_tol_test.sh KEDYN EXAMPLES_DIR
set -u
kedyn=$1
examples=$2
. "$(dirname "$0")/lib.sh"
cp -r "$examples/data" "$tmp/data"

# compare REF RUN: prints the largest position error (m), joint-force error (relative to the
# largest reference force), kinetic-energy error and energy drift of RUN (relative to the largest
# T), the largest drift of RUN, |q|_inf and the last time
compare() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
def load(f):
    r = list(csv.reader(open(f)))
    return r[0], [[float(x) for x in l] for l in r[1:]]
h, ref = load(sys.argv[1])
h2, run = load(sys.argv[2])
assert h == h2 and len(ref) == len(run)
col = {n: i for i, n in enumerate(h)}
coord = lambda n, k: n.count('.') == 1 and n.split('.')[1] in k
pos = [i for n, i in col.items() if coord(n, ('x', 'y', 'z'))]
q = [i for n, i in col.items() if coord(n, ('x', 'y', 'z', 'q0', 'q1', 'q2', 'q3'))]
frc = [i for n, i in col.items() if coord(n, ('Fx', 'Fy', 'Fz'))]
T, E = col['E_kinetic'], col['E_total']
tmax = max(abs(a[T]) for a in ref)
fmax = max(abs(a[i]) for a in ref for i in frc)
print(max(abs(a[i] - b[i]) for a, b in zip(ref, run) for i in pos),
      max(abs(a[i] - b[i]) for a, b in zip(ref, run) for i in frc) / fmax,
      max(abs(a[T] - b[T]) for a, b in zip(ref, run)) / tmax,
      max(abs(b[E] - run[0][E]) for b in run) / tmax,
      max(b[col['drift_position']] for b in run),
      max(abs(b[i]) for b in run for i in q),
      run[-1][0])
PY
}
le() { python3 -c "import sys; sys.exit(0 if float('$1') <= float('$2') else 1)"; }
eq() { python3 -c "import sys; sys.exit(0 if abs(float('$1') - float('$2')) < 1e-12 else 1)"; }

rtol=1.0e-3
atol=1.0e-4
bound() { python3 -c "print(3 * ($rtol * (1 + $1) + $atol))"; }   # 3 (rtol (1 + |q|_inf) + atol)

# ---- the rigid wiper over its motor cycle ----
sed -e '/^analyses:/,$d' "$examples/wiper_spatial.yaml" > "$tmp/wiper.yaml"
cat >> "$tmp/wiper.yaml" <<YAML
analyses:
  - {type: dynamics, t_end: 1.2, dt: 0.005, formulation: ida, rtol: 1.0e-10, atol: 1.0e-12}
  - {type: dynamics, t_end: 1.2, dt: 0.005, integrator: cvode-bdf, rtol: $rtol, atol: $atol}
  - {type: dynamics, t_end: 1.2, dt: 0.005, integrator: cvode-bdf, rtol: $rtol, atol: $atol, nonlinear_solver: fixed-point}
  - {type: dynamics, t_end: 1.2, dt: 0.005, integrator: cvode-bdf, rtol: $rtol, atol: $atol, stabilization: projection}
YAML
"$kedyn" run "$tmp/wiper.yaml" -o "$tmp/wiper" > /dev/null 2> "$tmp/wiper.err"
rc=$?
check "wiper: all four runs reach t_end (exit $rc: $(head -c 300 "$tmp/wiper.err"))" test $rc -eq 0
for k in 2 3 4; do
  [ -f "$tmp/wiper/dynamics_$k.csv" ] || { check "wiper: dynamics_$k.csv written" false; continue; }
  read -r ep ef et ee drift qmax tl <<< "$(compare "$tmp/wiper/dynamics.csv" "$tmp/wiper/dynamics_$k.csv")"
  echo "wiper run $k: position error $ep m, joint forces $ef, T $et (relative), drift $drift, |q| $qmax, t $tl"
  check "wiper run $k reaches t = 1.2 s" eq "$tl" 1.2
  if [ $k -lt 4 ]; then
    check "wiper run $k: drift $drift <= 3 (rtol (1 + |q|) + atol)" le "$drift" "$(bound "$qmax")"
    check "wiper run $k: positions within 1e-3 m of IDA ($ep)" le "$ep" 1e-3
    check "wiper run $k: joint forces within 1 % of IDA ($ef)" le "$ef" 1e-2
    check "wiper run $k: kinetic energy within 3 % of IDA ($et)" le "$et" 3e-2
  else   # projection: the motion is fixed by the driver, the projected states are exact
    check "wiper projected: output drift $drift at round-off" le "$drift" 1e-10
    check "wiper projected: positions within 1e-9 m of IDA ($ep)" le "$ep" 1e-9
    check "wiper projected: joint forces within 1e-5 of IDA ($ef)" le "$ef" 1e-5
  fi
done

# ---- the free RSSR loop: conservative, 2 s ----
sed -e '/^analyses:/,$d' "$examples/spatial_rssr_free.yaml" > "$tmp/rssr.yaml"
cat >> "$tmp/rssr.yaml" <<YAML
analyses:
  - {type: dynamics, t_end: 2.0, dt: 0.01, formulation: ida, rtol: 1.0e-10, atol: 1.0e-12}
  - {type: dynamics, t_end: 2.0, dt: 0.01, integrator: cvode-bdf, rtol: $rtol, atol: $atol}
  - {type: dynamics, t_end: 2.0, dt: 0.01, integrator: cvode-bdf, rtol: $rtol, atol: $atol, stabilization: projection}
YAML
"$kedyn" run "$tmp/rssr.yaml" -o "$tmp/rssr" > /dev/null 2> "$tmp/rssr.err"
rc=$?
check "RSSR: all runs reach t_end (exit $rc: $(head -c 300 "$tmp/rssr.err"))" test $rc -eq 0
if [ -f "$tmp/rssr/dynamics.csv" ]; then
  read -r ep ef et ee drift qmax tl <<< "$(compare "$tmp/rssr/dynamics.csv" "$tmp/rssr/dynamics.csv")"
  echo "RSSR reference: energy drift $ee (relative to max T)"
  check "RSSR reference conserves energy ($ee)" le "$ee" 1e-6
fi
for k in 2 3; do
  [ -f "$tmp/rssr/dynamics_$k.csv" ] || { check "RSSR: dynamics_$k.csv written" false; continue; }
  read -r ep ef et ee drift qmax tl <<< "$(compare "$tmp/rssr/dynamics.csv" "$tmp/rssr/dynamics_$k.csv")"
  echo "RSSR run $k: position error $ep m, T $et, energy drift $ee (relative to max T), drift $drift, t $tl"
  check "RSSR run $k reaches t = 2 s" eq "$tl" 2
  check "RSSR run $k: energy balance within 5 % of max T ($ee)" le "$ee" 5e-2
  check "RSSR run $k: positions within 0.03 m of IDA ($ep)" le "$ep" 3e-2
  if [ $k -eq 2 ]; then
    check "RSSR run $k: drift $drift <= 3 (rtol (1 + |q|) + atol)" le "$drift" "$(bound "$qmax")"
  else
    check "RSSR projected: output drift $drift at round-off" le "$drift" 1e-10
  fi
done

# ---- Jacobian reuse on a non-stiff mechanism: Newton's evaluations against fixed point's; the
# first output 0.02 s after the start, so that Newton's Jacobian is kept over the first steps ----
sed -e '/^analyses:/,$d' "$examples/spatial_rssr_free.yaml" > "$tmp/cost.yaml"
cat >> "$tmp/cost.yaml" <<YAML
analyses:
  - {type: dynamics, t_end: 5.0, dt: 0.02, integrator: cvode-bdf, rtol: 1.0e-6, atol: 1.0e-7, nonlinear_solver: newton}
  - {type: dynamics, t_end: 5.0, dt: 0.02, integrator: cvode-bdf, rtol: 1.0e-6, atol: 1.0e-7, nonlinear_solver: fixed-point}
YAML
"$kedyn" run "$tmp/cost.yaml" -o "$tmp/cost" > /dev/null 2> "$tmp/cost.err"
rc=$?
check "RSSR rtol 1e-6: both runs reach t_end (exit $rc: $(head -c 300 "$tmp/cost.err"))" test $rc -eq 0
read -r rn rf dn df tn tf <<< "$(python3 -c "
import json; a = json.load(open('$tmp/cost/summary.json'))['analyses']
print(a[0]['rhs_evals'], a[1]['rhs_evals'], a[0]['max_drift_position'], a[1]['max_drift_position'],
      a[0]['t_reached'], a[1]['t_reached'])" 2>/dev/null)"
echo "RSSR rtol 1e-6: evaluations Newton $rn, fixed point $rf; drift Newton $dn, fixed point $df"
check "RSSR rtol 1e-6: Newton reaches t = 5 s ($tn)" eq "${tn:-0}" 5
check "RSSR rtol 1e-6: Newton's drift ($dn) <= 10 (rtol (1 + |q|) + atol) = 2.1e-5" le "${dn:-1}" 2.1e-5
check "RSSR: Newton's evaluations ($rn) <= fixed point's ($rf)" le "${rn:-1e99}" "${rf:-0}"

finish bdf_loose_tol_test
