#!/usr/bin/env bash
# The spatial wiper with two-way coupled elastic rods (examples/wiper_spatial_two_way.yaml,
# theory.md sec. 17) end to end from the model file, against the one-way run of
# examples/wiper_spatial_elastic.yaml (the same rods, 4 elements, the rigid motion prescribed):
#   - both start from the quasi-static deflection; over the first 0.05 s of the motor cycle the
#     rods' midspan deflections v, w relative to their chords (one-way: the chord frame's v, w;
#     two-way: the root frame's v, w less half those of the last node) agree to 1e-3 of the largest;
#   - the two differ by the rods' action on the motion, which the one-way run leaves out: a
#     deflection of order 1/E acting on a motion changed by order 1/E, so the difference falls
#     like 1/E^2: with E x 4 it falls by 16 (asserted in (8, 32)) while the deflections fall by 4;
#   - the run writes summary.json (coupling two-way, the links), dynamics.csv and the report; in
#     animation.json each rod's last node, drawn at its frame's pose displaced by its u, v, w, lies
#     on the lever's joint point drawn from the lever's own pose (undisplaced it misses by the
#     frame's misalignment with the chord, millimetres).
# usage: wiper_two_way_test.sh KEDYN EXAMPLES_DIR
set -u
kedyn=$1
examples=$2
. "$(dirname "$0")/lib.sh"
ln -s "$examples/data" "$tmp/data"

run_pair() {  # run_pair TAG E DT: the two runs over 0.05 s, outputs every 1 ms
  local tag=$1 E=$2 dt=$3 every
  every=$(python3 -c "print(round(1e-3 / $dt))")
  sed "s/E: 210e9/E: $E/; s/t_end: 0.3, dt: 5.0e-6, output_every: 400/t_end: 0.05, dt: $dt, output_every: $every/" \
    "$examples/wiper_spatial_two_way.yaml" >"$tmp/two_$tag.yaml"
  sed "s/E: 210e9/E: $E/; s/    elements: 10/    elements: 4/; s/t_end: 1.2, dt: 1.0e-4, steps: 480, output_every: 20/t_end: 0.05, dt: 1.0e-5, steps: 200, output_every: 100/" \
    "$examples/wiper_spatial_elastic.yaml" >"$tmp/one_$tag.yaml"
  "$kedyn" run "$tmp/two_$tag.yaml" -o "$tmp/two_$tag" --report >"$tmp/two_$tag.txt" 2>&1 || return 1
  "$kedyn" run "$tmp/one_$tag.yaml" -o "$tmp/one_$tag" >"$tmp/one_$tag.txt" 2>&1 || return 1
}
run_pair E 210e9 5.0e-6; check "two-way and one-way runs exit 0 (E)" test $? -eq 0
run_pair E4 840e9 2.5e-6; check "two-way and one-way runs exit 0 (4 E)" test $? -eq 0
check "summary, dynamics.csv and report of the two-way run" \
  test -s "$tmp/two_E/summary.json" -a -s "$tmp/two_E/dynamics.csv" -a -s "$tmp/two_E/report.html"
check "summary.json: two-way coupling, two links" \
  python3 -c "
import json, sys
s = json.load(open('$tmp/two_E/summary.json'))
txt = json.dumps(s)
sys.exit(0 if '\"two-way\"' in txt and '\"links\": 2' in txt else 1)"

check "midspan deflections: one-way against two-way, and the difference falls like 1/E^2" \
  python3 - "$tmp" <<'PY'
import csv, sys
tmp = sys.argv[1]
def diff(tag):
    one = {round(float(r['t']), 9): r for r in csv.DictReader(open('%s/one_%s/dynamics.csv' % (tmp, tag)))}
    dmax = amax = 0.0
    n = 0
    for r in csv.DictReader(open('%s/two_%s/dynamics.csv' % (tmp, tag))):
        t = round(float(r['t']), 9)
        if t not in one:
            continue
        o = one[t]
        n += 1
        for rod in ('rod1', 'rod2'):
            for c in ('v', 'w'):
                a = float(o['%s.3.%s' % (rod, c)])
                b = float(r['%s.3.%s' % (rod, c)]) - 0.5 * float(r['%s.5.%s' % (rod, c)])
                dmax, amax = max(dmax, abs(a - b)), max(amax, abs(a))
    return n, dmax, amax
n1, d1, a1 = diff('E')
n4, d4, a4 = diff('E4')
print('E: %d instants, midspan deflection up to %.4e m, one-way/two-way difference %.4e m (%.2e); '
      '4 E: %d instants, %.4e m, %.4e m (%.2e); the difference falls by %.1f, the deflection by %.2f'
      % (n1, a1, d1, d1 / a1, n4, a4, d4, d4 / a4, d1 / d4, a1 / a4))
ok = n1 >= 50 and n4 >= 50 and a1 > 5e-4 and d1 < 1e-3 * a1 and 8 < d1 / d4 < 32 and 3.5 < a1 / a4 < 4.5
sys.exit(0 if ok else 1)
PY

check "animation: each rod's last node, drawn displaced, at its universal joint on the lever" \
  python3 - "$tmp/two_E/animation.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
names = [b['name'] for b in a['bodies']]
def at(pose, x):
    return [pose[r] + sum(pose[3 + 3 * r + c] * x[c] for c in range(3)) for r in range(3)]
worst = rigid = 0.0
frames = a['sets'][0]['frames']
for f in frames:
    for rod, lever in (('rod1', 'lever'), ('rod2', 'lever2')):
        b, l = names.index(rod), names.index(lever)
        pts = a['bodies'][b]['points']
        last = len(pts) - 1
        u = f['disp'][b][3 * last:3 * last + 3]
        tip = at(f['pose'][b], [pts[last][c] + u[c] for c in range(3)])
        bare = at(f['pose'][b], pts[last])
        C = at(f['pose'][l], a['bodies'][l]['points'][1])   # C (lever) or F (lever2): its second point
        worst = max(worst, max(abs(tip[c] - C[c]) for c in range(3)))
        rigid = max(rigid, max(abs(bare[c] - C[c]) for c in range(3)))
print('animation: %d frames; the drawn last node is %.2e m from the joint point (undisplaced: %.2e m)'
      % (len(frames), worst, rigid))
sys.exit(0 if len(frames) >= 10 and worst < 1e-5 and rigid > 1e-3 else 1)
PY

finish wiper_two_way_test
