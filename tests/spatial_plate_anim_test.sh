#!/usr/bin/env bash
# A plate link of a spatial mechanism in the animation (the flapping plate of
# examples/spatial_plate_flapper.yaml on a 6 x 2 mesh, every node output, and on a 15 x 6 mesh
# drawn as a coarse grid): animation.json draws the plate's mesh nodes at pose (p + s d). Checked
# against references the animation does not write:
#   - the drawn points are mesh nodes, found by the rectangle's numbering (along the shorter side
#     first: node i (ny + 1) + j + 1 at (a i / nx, b j / ny, 0)); the 6 x 2 mesh draws every node
#     and every cell edge, the 15 x 6 mesh (112 nodes) at most 96 points on a lattice with the corners;
#   - each drawn node at each frame against r_G + R (x_n - c) + s R u_n, with r_G and R (Euler
#     parameters) from kinematics.csv (a `kinematics` analysis of the same model at the same
#     instants), c the rectangle's centroid and u_n from dynamics.csv, for s = 0 (the rigid mesh),
#     1 and 50; the same reference with -u_n or with R transposed must be far off (the check
#     would catch a wrong sign of the displacement or a wrong rotation);
#   - in headless Chromium (report.html#scale=S&frame=N): the largest drawn displacement is 0 at
#     s = 0 and the largest |u_n| of the instant at s = 1.
#   - the two-way shell link of examples/spatial_plate_flapper_two_way.yaml: its drawn nodes move by
#     the displacements of dynamics.csv at each frame (and dynamics.csv has its `wing.sigma_max`,
#     no section-force columns for it).
# usage: spatial_plate_anim_test.sh KEDYN EXAMPLES_DIR. The browser part is skipped without chromium.
set -u
kedyn=$1
examples=$2
. "$(dirname "$0")/lib.sh"

# model NX NY T_END STEPS OUT: the flapper on an NX x NY mesh, every node in dynamics.csv, with a
# kinematics analysis at the rigid samples (dynamics rows every 20 steps of 2e-4 s = every sample)
model() {
  sed -e "s/divisions: \[15, 4\]/divisions: [$1, $2]/" -e '/^    output: tip/d' \
      -e '/^analyses:/,$d' "$examples/spatial_plate_flapper.yaml" >"$5"
  cat >>"$5" <<EOF
analyses:
  - {type: dynamics, t_end: $3, dt: 2.0e-4, steps: $4, output_every: 20}
  - {type: kinematics, t_end: $3, steps: $4}
EOF
}
model 6 2 0.48 120 "$tmp/small.yaml"
model 15 6 0.04 10 "$tmp/large.yaml"
# a Gmsh file of a 4 x 3 quadrilateral mesh of 0.2 x 0.12 m (numbered along x first) for the flapper:
# every corner edge drawn (chained into paths), its nodes against the same references
python3 - "$tmp/file.msh" <<'PY'
import sys
nx, ny, a, b = 4, 3, 0.2, 0.12
nodes = [(i, j) for j in range(ny + 1) for i in range(nx + 1)]
tag = {n: k + 1 for k, n in enumerate(nodes)}
L = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", "$Entities", "0 0 1 0", "1 0 0 0 %g %g 0 0 0" % (a, b),
     "$EndEntities", "$Nodes", "1 %d 1 %d" % (len(nodes), len(nodes)), "2 1 0 %d" % len(nodes)]
L += [str(tag[n]) for n in nodes] + ["%.17g %.17g 0" % (a * i / nx, b * j / ny) for i, j in nodes]
L += ["$EndNodes", "$Elements", "1 %d 1 %d" % (nx * ny, nx * ny), "2 1 3 %d" % (nx * ny)]
L += ["%d %d %d %d %d" % (1 + i + nx * j, tag[(i, j)], tag[(i + 1, j)], tag[(i + 1, j + 1)], tag[(i, j + 1)])
      for j in range(ny) for i in range(nx)]
open(sys.argv[1], "w").write("\n".join(L + ["$EndElements"]) + "\n")
PY
model 15 4 0.24 60 "$tmp/file.yaml"
sed -i -e "s#mesh: {rectangle: \[0.3, 0.06\], divisions: \[15, 4\]}#mesh: {file: $tmp/file.msh}#" \
    -e 's/tip: {x: 0.3}/tip: {x: 0.2}/' -e 's/C: \[0.2, 0.03, 0\]/C: [0.2, 0.04, 0]/' \
    -e 's/D: \[0, 0.03, 0\]/D: [0, 0.04, 0]/' -e 's/position: \[0.3, -0.03, 0.1\]/position: [0.3, -0.04, 0.1]/' "$tmp/file.yaml"
for m in small large file; do
  "$kedyn" run "$tmp/$m.yaml" -o "$tmp/$m" --report >"$tmp/$m.txt" 2>&1; code=$?
  check "$m: run --report exits 0" test $code -eq 0
  check "$m: the wing is a plate in the animation" grep -q '"name": "wing", "type": "plate"' "$tmp/$m/animation.json"
done

compare() {  # compare DIR NX NY A B FULL: the checks above; FULL 1: every node and cell edge drawn;
            # A, B the plate's sides (m); B < 0: a file of side -B numbered along x first
  python3 - "$1" "$2" "$3" "$4" "$5" "$6" "$tmp/frame.txt" <<'PY'
import csv, json, math, sys
out, nx, ny, full = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[6] == "1"
a, b = float(sys.argv[4]), float(sys.argv[5])
xfirst = b < 0
b = abs(b)
A = json.load(open(out + "/animation.json"))
def table(name):
    rows = list(csv.reader(open("%s/%s.csv" % (out, name))))
    return {h: i for i, h in enumerate(rows[0])}, [list(map(float, r)) for r in rows[1:]]
dcol, drows = table("dynamics")
kcol, krows = table("kinematics")
s = [x for x in A["sets"] if x["type"] == "dynamics"][0]
w = [k for k, x in enumerate(A["bodies"]) if x["name"] == "wing"][0]
pts = A["bodies"][w]["points"]
# the drawn points: mesh nodes by the rectangle's numbering (y first when ny <= nx)
nodes = []
for p in pts:
    i, j = p[0] * nx / a, p[1] * ny / b
    if abs(i - round(i)) > 1e-4 or abs(j - round(j)) > 1e-4 or abs(p[2]) > 1e-9:
        print("point %s is at no node" % p); sys.exit(1)
    i, j = int(round(i)), int(round(j))
    nodes.append((i, j, j * (nx + 1) + i + 1 if xfirst else i * (ny + 1) + j + 1))
lattice = set((i, j) for i, j, _ in nodes)
corners = all(c in lattice for c in [(0, 0), (nx, 0), (0, ny), (nx, ny)])
if full:
    edges = set()
    for path in A["bodies"][w]["paths"]:
        for k in range(1, len(path)):
            edges.add(frozenset((nodes[path[k - 1]][:2], nodes[path[k]][:2])))
    need = [frozenset(((i, j), (i + 1, j))) for i in range(nx) for j in range(ny + 1)] + \
           [frozenset(((i, j), (i, j + 1))) for i in range(nx + 1) for j in range(ny)]
    shape_ok = len(lattice) == (nx + 1) * (ny + 1) and all(e in edges for e in need)
else:
    shape_ok = len(pts) <= 96 and len(lattice) >= 16 and corners
print("%s: %d points drawn of %d nodes, %d paths, corners %s" % (out.split("/")[-1], len(pts), (nx + 1) * (ny + 1),
      len(A["bodies"][w]["paths"]), corners))
def rot(e):  # A(p) of the Euler parameters (theory.md sec. 11), row-major
    e0, e1, e2, e3 = e
    return [[2 * (e0 * e0 + e1 * e1) - 1, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
            [2 * (e1 * e2 + e0 * e3), 2 * (e0 * e0 + e2 * e2) - 1, 2 * (e2 * e3 - e0 * e1)],
            [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 2 * (e0 * e0 + e3 * e3) - 1]]
def mul(R, x): return [sum(R[r][c] * x[c] for c in range(3)) for r in range(3)]
def row(rows, t):
    i = min(range(len(rows)), key=lambda k: abs(rows[k][0] - t))
    return rows[i] if abs(rows[i][0] - t) < 1e-7 else None
com = [a / 2, b / 2, 0.0]
err = {"rigid": 0.0, "deformed": 0.0, "-u": 1e300, "R^T": 1e300}
umax_all, fmax, frames = 0.0, 0, 0
for f, t in enumerate(s["t"]):
    dr, kr = row(drows, t), row(krows, t)
    if dr is None or kr is None:
        print("frame %d: no csv row at t = %g" % (f, t)); sys.exit(1)
    P, d = s["frames"][f]["pose"][w], s["frames"][f]["disp"][w]
    r = [kr[kcol["wing." + c]] for c in "xyz"]
    R = rot([kr[kcol["wing.q%d" % k]] for k in range(4)])
    RT = [[R[c][r_] for c in range(3)] for r_ in range(3)]
    umax = 0.0
    bad = {"-u": 0.0, "R^T": 0.0}
    for k, (i, j, tag) in enumerate(nodes):
        u = [dr[dcol["wing.%d.%s" % (tag, c)]] for c in "uvw"]
        umax = max(umax, math.sqrt(sum(x * x for x in u)))
        x = [a * i / nx - com[0], b * j / ny - com[1], 0.0]
        for sc in (0.0, 1.0, 50.0):
            p = [pts[k][c] + sc * d[3 * k + c] for c in range(3)]
            drawn = [P[r_] + P[3 + 3 * r_] * p[0] + P[4 + 3 * r_] * p[1] + P[5 + 3 * r_] * p[2] for r_ in range(3)]
            def dist(RR, sign):
                ref = [r[c] + mul(RR, x)[c] + sign * sc * mul(RR, u)[c] for c in range(3)]
                return max(abs(drawn[c] - ref[c]) for c in range(3))
            key = "rigid" if sc == 0 else "deformed"
            err[key] = max(err[key], dist(R, 1))
            if sc == 50: bad["-u"] = max(bad["-u"], dist(R, -1))
            bad["R^T"] = max(bad["R^T"], dist(RT, 1))
    if umax > 1e-5:  # the perturbations, at instants where the plate is bent
        for key in bad: err[key] = min(err[key], bad[key])
    if umax > umax_all: umax_all, fmax = umax, f
    frames += 1
print("  %d frames: largest |drawn - reference| %.2e m (s = 0), %.2e m (s = 1, 50); with -u %.2e m, with R^T "
      "%.2e m (smallest over the bent instants); largest |u| %.4g m at frame %d" %
      (frames, err["rigid"], err["deformed"], err["-u"], err["R^T"], umax_all, fmax))
open(sys.argv[7], "w").write("%d %.6g\n" % (fmax, umax_all))
tol = 5e-6
ok = shape_ok and frames >= 10 and umax_all > 1e-4 and err["rigid"] < tol and err["deformed"] < tol \
     and err["-u"] > 100 * tol and err["R^T"] > 100 * tol
sys.exit(0 if ok else 1)
PY
}
check "large: a bounded coarse grid of nodes against kinematics.csv and dynamics.csv" compare "$tmp/large" 15 6 0.3 0.06 0
check "file: every node and edge against kinematics.csv and dynamics.csv" compare "$tmp/file" 4 3 0.2 -0.12 1
check "small: every node and edge against kinematics.csv and dynamics.csv" compare "$tmp/small" 6 2 0.3 0.06 1

# The two-way shell link (examples/spatial_plate_flapper_two_way.yaml, 4 ms): the drawn points are
# mesh nodes (6 x 2, every node drawn and written), their displacements at each frame those of
# dynamics.csv's wing.N.u/v/w at the same instant (the floating frame's elastic coordinates).
sed -e 's/t_end: 0.02/t_end: 0.004/' "$examples/spatial_plate_flapper_two_way.yaml" >"$tmp/two_way.yaml"
"$kedyn" run "$tmp/two_way.yaml" -o "$tmp/two_way" --report --quiet >/dev/null 2>&1
two_way() {
  python3 - "$tmp/two_way" <<'PY'
import csv, json, sys
a = json.load(open(sys.argv[1] + "/animation.json"))
rows = list(csv.reader(open(sys.argv[1] + "/dynamics.csv")))
col = {h: k for k, h in enumerate(rows[0])}
by_t = {round(float(r[0]), 9): r for r in rows[1:]}
b = [k for k, x in enumerate(a["bodies"]) if x["name"] == "wing"][0]
pts = a["bodies"][b]["points"]
nodes = [round(p[0] / 0.05) * 3 + round(p[1] / 0.03) + 1 for p in pts]
worst, big, frames = 0.0, 0.0, 0
for t, f in zip(a["sets"][0]["t"], a["sets"][0]["frames"]):
    r = by_t.get(round(t, 9))
    if r is None: continue
    frames += 1
    d = f["disp"][b]
    for k, n in enumerate(nodes):
        for c, name in enumerate("uvw"):
            ref = float(r[col["wing.%d.%s" % (n, name)]])
            big = max(big, abs(ref))
            worst = max(worst, abs(d[3 * k + c] - ref))
print("two-way: %d frames, %d points, largest |u| %.3g, worst %.3g" % (frames, len(pts), big, worst))
stress_cols = [h for h in rows[0] if h.startswith("wing.") and h.split(".")[-1] in ("N", "My", "Mz", "sigma")]
smax = "wing.sigma_max" in rows[0]
print("two-way: section-force columns of the shell: %d (none expected), wing.sigma_max: %s" % (len(stress_cols), smax))
sys.exit(0 if frames >= 3 and len(pts) == 21 and big > 1e-6 and worst < 1e-5 * big and not stress_cols and smax else 1)
PY
}
check "two-way shell link: the drawn nodes move by dynamics.csv's displacements" two_way

if [ -n "$browser" ] && [ -s "$tmp/frame.txt" ]; then
  read -r f umax <"$tmp/frame.txt"
  for sc in 0 1; do
    chrome "$tmp/p$sc" --virtual-time-budget=1000 --dump-dom "file://$tmp/small/report.html#frame=$f&scale=$sc" \
      >"$tmp/dom$sc.html" 2>/dev/null
  done
  moved0=$(state "$tmp/dom0.html" moved); moved1=$(state "$tmp/dom1.html" moved)
  echo "drawn displacement at frame $f: $moved0 m at scale 0, $moved1 m at scale 1 (largest |u| $umax m)"
  check "scale 0 draws the rigid plate" test "$moved0" = "0.000"
  check "scale 1 draws the deflection" python3 -c "import sys; sys.exit(abs($moved1 / $umax - 1) > 1e-3)"
  check "no script errors" test "$(state "$tmp/dom1.html" errors)" = 0
else
  echo "spatial_plate_anim_test: chromium not found; the browser checks skipped"
fi

finish spatial_plate_anim_test
