#!/usr/bin/env bash
# The elastic links of a spatial mechanism in the animation (examples/wiper_spatial_elastic.yaml,
# one-way): animation.json draws each rod through its nodes, node n at pose (p1 + x_n + s u_n).
# Checked against references the animation does not write:
#   - the deflections u_n (body frame) of every frame against dynamics.csv at the same instant;
#   - the rigid centre line (s = 0) against the straight line between the joint points of the
#     neighbouring bodies (crank B and lever C for rod1, lever C and lever2 F for rod2), each from
#     its own body's pose; the deformed line (s = 1, 50) against that line plus s R u_n from
#     dynamics.csv (R: the rod's axes);
#   - in headless Chromium (report.html#scale=S&frame=N): the largest drawn displacement is 0 at
#     s = 0 and the largest |u_n| of the instant at s = 1; the drawing at s = 200 differs from s = 0.
# usage: spatial_anim_test.sh KEDYN EXAMPLES_DIR. The browser part is skipped without chromium.
set -u
kedyn=$1
examples=$2
. "$(dirname "$0")/lib.sh"

"$kedyn" run "$examples/wiper_spatial_elastic.yaml" -o "$tmp/w" --report >"$tmp/run.txt" 2>&1; code=$?
check "elastic wiper run --report exits 0" test $code -eq 0
check "the rods are beams in the animation" grep -q '"name": "rod1", "type": "beam"' "$tmp/w/animation.json"

check "rods: deflections, rigid and deformed centre lines against dynamics.csv and the joints" \
  python3 - "$tmp/w/animation.json" "$tmp/w/dynamics.csv" "$tmp/frame.txt" <<'PY'
import csv, json, math, sys
A = json.load(open(sys.argv[1]))
rows = list(csv.reader(open(sys.argv[2])))
head, rows = rows[0], [list(map(float, r)) for r in rows[1:]]
col = {h: i for i, h in enumerate(head)}
bodies = {b["name"]: k for k, b in enumerate(A["bodies"])}
s = A["sets"][0]
def glob(P, x):
    return [P[r] + P[3 + 3 * r] * x[0] + P[4 + 3 * r] * x[1] + P[5 + 3 * r] * x[2] for r in range(3)]
def rot(P, x):
    return [P[3 + 3 * r] * x[0] + P[4 + 3 * r] * x[1] + P[5 + 3 * r] * x[2] for r in range(3)]
def point(name, idx, f):
    b = bodies[name]
    return glob(s["frames"][f]["pose"][b], A["bodies"][b]["points"][idx])
def named(body, x):  # the index of the shape point at body coordinates x
    pts = A["bodies"][bodies[body]]["points"]
    return min(range(len(pts)), key=lambda i: sum((pts[i][c] - x[c]) ** 2 for c in range(3)))
# rod: (its first and last joint: body, point in that body's frame; length)
rods = {"rod1": (("crank", [0.040, 0, 0]), ("lever", [0.0552, 0, 0]), 0.3194),
        "rod2": (("lever", [0.0552, 0, 0]), ("lever2", [0.0587, 0, 0]), 0.3819)}
err_u = err_rigid = err_def = 0.0
umax_all, fmax, checked = 0.0, 0, 0
for f, t in enumerate(s["t"]):
    i = min(range(len(rows)), key=lambda k: abs(rows[k][0] - t))
    if abs(rows[i][0] - t) > 1e-7:
        print("frame %d: no dynamics.csv row at t = %g" % (f, t)); sys.exit(1)
    umax = 0.0
    for rod, (j0, j1, L) in rods.items():
        b = bodies[rod]
        body = A["bodies"][b]
        d = s["frames"][f]["disp"][b]
        P = s["frames"][f]["pose"][b]
        a = point(j0[0], named(j0[0], j0[1]), f)
        e = point(j1[0], named(j1[0], j1[1]), f)
        for n in range(11):
            u = [rows[i][col["%s.%d.%s" % (rod, n + 1, c)]] for c in "uvw"]
            umax = max(umax, math.sqrt(sum(x * x for x in u)))
            err_u = max(err_u, max(abs(d[3 * n + c] - u[c]) for c in range(3)))
            Ru = rot(P, u)
            line = [a[c] + n / 10 * (e[c] - a[c]) for c in range(3)]
            for sc in (0.0, 1.0, 50.0):
                x = [body["points"][n][c] + sc * d[3 * n + c] for c in range(3)]
                drawn = glob(P, x)
                ref = [line[c] + sc * Ru[c] for c in range(3)]
                e_ = max(abs(drawn[c] - ref[c]) for c in range(3))
                if sc == 0: err_rigid = max(err_rigid, e_)
                else: err_def = max(err_def, e_)
        checked += 1
    if umax > umax_all: umax_all, fmax = umax, f
print("rods over %d frames: deflection vs dynamics.csv %.2e m, rigid line vs joints %.2e m, "
      "deformed %.2e m; largest |u| %.4g m at frame %d" % (len(s["t"]), err_u, err_rigid, err_def, umax_all, fmax))
open(sys.argv[3], "w").write("%d %.6g\n" % (fmax, umax_all))
ok = len(s["t"]) > 100 and umax_all > 1e-4 and err_u < 1e-5 * umax_all and err_rigid < 2e-5 and err_def < 2e-5
sys.exit(0 if ok else 1)
PY

if [ -n "$browser" ] && [ -s "$tmp/frame.txt" ]; then
  read -r f umax <"$tmp/frame.txt"
  for sc in 0 1; do
    chrome "$tmp/p$sc" --virtual-time-budget=1000 --dump-dom "file://$tmp/w/report.html#frame=$f&scale=$sc" \
      >"$tmp/dom$sc.html" 2>/dev/null
  done
  moved0=$(state "$tmp/dom0.html" moved); moved1=$(state "$tmp/dom1.html" moved)
  echo "drawn displacement at frame $f: $moved0 m at scale 0, $moved1 m at scale 1 (largest |u| $umax m)"
  check "scale 0 draws the rigid rods" test "$moved0" = "0.000"
  check "scale 1 draws the deflection" python3 -c "import sys; sys.exit(abs($moved1 / $umax - 1) > 1e-3)"
  check "no script errors" test "$(state "$tmp/dom1.html" errors)" = 0
  for sc in 0 200; do
    chrome "$tmp/s$sc" --virtual-time-budget=1400 --window-size=1200,900 --screenshot="$tmp/shot$sc.png" \
      "file://$tmp/w/report.html#view=top&frame=$f&scale=$sc" >/dev/null 2>&1
  done
  check "the bent rods are drawn differently from the rigid ones" bash -c "test -s '$tmp/shot0.png' && ! cmp -s '$tmp/shot0.png' '$tmp/shot200.png'"
else
  echo "spatial_anim_test: chromium not found; the browser checks skipped"
fi

finish spatial_anim_test
