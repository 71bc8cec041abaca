#!/usr/bin/env bash
# The elastic joint force of a reduced plate link by mode acceleration (theory.md sec. 22, SL7),
# end to end from the flapper (examples/spatial_plate_flapper.yaml, Newmark's average
# acceleration, whose equations hold at the output instants): the hinge D's `D.dF*` of the link
# with `modes: N`, N = 4, 8, 32, against the full link's, which takes the support's rows of the
# element equations (the stiffness times the displacement at the clamped edge: a different
# formula). Asserted, as the largest difference over the run over the full link's largest:
# the force error falls with N, below 3e-2 at 8 modes (measured 1.84e-2; the support rows of the
# expanded state gave 1.84e-1) and below 5e-3 at 32 (measured 2.1e-3; before 2.4e-2). Between 8
# and 16 modes it stays at 1.8e-2 as the tip's in-plane u does (1.2e-3): a membrane mode between
# the 16th and the 32nd is excited and dynamic, so no static correction recovers it; the tip's w
# (2.6e-5 at 8 modes) is printed for comparison.
# Also `static_correction: soft` on a one-way link (a located error, exit 1, nothing written) and
# `static_correction` of two-way reduced rods end to end (theory.md sec. 17, F12): the first 5 ms
# of examples/wiper_spatial_two_way_modal.yaml with basis, soft and none against the unreduced
# rods, the errors in that order, soft < 1e-5 and none > 1e-4 of the largest deflection.
# usage: spatial_plate_modeacc_cli_test.sh KEDYN EXAMPLES_DIR
set -u
kedyn=$1
examples=$2
. "$(dirname "$0")/lib.sh"
cp -r "$examples/data" "$tmp/" 2>/dev/null
sed 's/output_every: 10}/output_every: 10, integrator: newmark}/' "$examples/spatial_plate_flapper.yaml" > "$tmp/full.yaml"
grep -q 'integrator: newmark' "$tmp/full.yaml" || { echo "FAIL: the flapper's dynamics line changed"; exit 1; }
"$kedyn" run "$tmp/full.yaml" -o "$tmp/full" > "$tmp/log" 2>&1 || { echo "FAIL: full flapper"; cat "$tmp/log"; exit 1; }
for n in 4 8 32; do
  sed "s/^    output: tip/    output: tip\n    modes: $n/" "$tmp/full.yaml" > "$tmp/m$n.yaml"
  "$kedyn" run "$tmp/m$n.yaml" -o "$tmp/m$n" > "$tmp/log" 2>&1 || { echo "FAIL: modes: $n"; cat "$tmp/log"; fail=1; }
done
python3 - "$tmp" <<'PY' || fail=1
import csv, math, sys
d = sys.argv[1]
def rows(n): return list(csv.DictReader(open('%s/%s/dynamics.csv' % (d, n))))
full = rows('full')
def f(r): return [float(r['D.dF' + k]) for k in 'xyz']
wcol = [c for c in full[0] if c.startswith('wing.') and c.endswith('.w')]   # the tip set's w
fmax = max(math.sqrt(sum(x * x for x in f(r))) for r in full)
wmax = max(abs(float(r[c])) for r in full for c in wcol)
e, ew = {}, {}
for n in (4, 8, 32):
    m = rows('m%d' % n)
    assert len(m) == len(full)
    e[n] = max(math.sqrt(sum((a - b) ** 2 for a, b in zip(f(x), f(y)))) for x, y in zip(full, m)) / fmax
    ew[n] = max(abs(float(x[c]) - float(y[c])) for x, y in zip(full, m) for c in wcol) / wmax
    print('modes %2d: hinge elastic force %.3e of its largest %.4e N, tip w %.3e of its largest %.4e m' % (n, e[n], fmax, ew[n], wmax))
ok = e[4] > e[8] > e[32] and e[8] < 3e-2 and e[32] < 5e-3 and fmax > 1e-2
sys.exit(not ok)
PY
# a one-way link with `static_correction: soft` (a two-way links' choice): located, exit 1, nothing written
sed "s/^    output: tip/    output: tip\n    modes: 8\n    static_correction: soft/" "$tmp/full.yaml" > "$tmp/bad.yaml"
"$kedyn" run "$tmp/bad.yaml" -o "$tmp/bad" > "$tmp/err" 2>&1
rc=$?
grep -q 'bad.yaml:[0-9]*:[0-9]*: error: static_correction: soft applies to two-way links' "$tmp/err" && test $rc -eq 1 &&
  test ! -e "$tmp/bad" || { echo "FAIL: soft on a one-way link"; cat "$tmp/err"; fail=1; }
# `static_correction` of two-way reduced rods end to end: the wiper's first 5 ms (6 modes per rod,
# rk4 at 1e-5 s) against the unreduced rods (2e-6 s): basis, soft, none in that order of accuracy
# (measured over 0.05 s: 3.4e-8, 1.5e-7, 3.2e-3; docs/validation.md)
w="$examples/wiper_spatial_two_way_modal.yaml"
for v in basis soft none full; do
  sed -e 's/t_end: 1.2, dt: 1.5e-5, output_every: 400/t_end: 0.005, dt: 1.0e-5, output_every: 50/' "$w" > "$tmp/wiper_$v.yaml"
  case $v in
    soft|none) sed -i "s/^\( *\)modes: 6/\1modes: 6\n\1static_correction: $v/" "$tmp/wiper_$v.yaml" ;;
    full) sed -i -e '/^ *modes: 6/d' -e 's/dt: 1.0e-5, output_every: 50/dt: 2.0e-6, output_every: 250/' "$tmp/wiper_$v.yaml" ;;
  esac
  "$kedyn" run "$tmp/wiper_$v.yaml" -o "$tmp/wo_$v" > "$tmp/log" 2>&1 || { echo "FAIL: wiper $v"; cat "$tmp/log"; fail=1; }
done
python3 - "$tmp" <<'PY' || fail=1
import csv, sys
d = sys.argv[1]
def rows(v): return list(csv.DictReader(open('%s/wo_%s/dynamics.csv' % (d, v))))
full = rows('full')
cols = ['rod%d.%d.%s' % (r, n, c) for r in (1, 2) for n in (6, 11) for c in 'vw']
amax = max(abs(float(x[c])) for x in full for c in cols)
e = {}
for v in ('basis', 'soft', 'none'):
    m = rows(v)
    assert len(m) == len(full)
    e[v] = max(abs(float(x[c]) - float(y[c])) for x, y in zip(full, m) for c in cols) / amax
    print('wiper, 5 ms, static_correction %-5s: v, w of nodes 6 and 11 within %.3e of the unreduced rods (%.4e m)' % (v, e[v], amax))
sys.exit(not (e['basis'] < e['soft'] < e['none'] and e['soft'] < 1e-5 and e['none'] > 1e-4))
PY
test "$fail" -eq 0 && echo "spatial_plate_modeacc_cli_test: passed" || echo "spatial_plate_modeacc_cli_test: FAILED"
test "$fail" -eq 0
