#!/usr/bin/env bash
# The HTML report in a real browser (headless Chromium, Debian package
# `chromium`): the page loads with no console errors, the animation
# advances (the page writes its frame counter into #kd-state), and a
# screenshot shows the drawing (pixels of the beam's colour, counted by
# png_ink). Also: figures as PNG and SVG, no external resources.
# usage: report_test.sh KEDYN PNG_INK EXAMPLES_DIR
# Exit 77 (skipped) only when chromium is not installed.
set -u
kedyn=$1
png_ink=$2
examples=$3
. "$(dirname "$0")/lib.sh"
if [ -z "$browser" ]; then
  echo "report_test: chromium not found (scripts/setup.sh installs it); skipped"
  exit 77
fi

# The demo writes its report by default; a dynamics run with --report.
(cd "$tmp" && "$kedyn" demo -o demo >demo.txt 2>&1); code=$?
check "demo exits 0" test $code -eq 0
check "demo report" test -s "$tmp/demo/cubic/report.html"
check "demo animation.json" grep -q '"kedyn_animation": 1' "$tmp/demo/cubic/animation.json"
check "demo figure png" test -s "$tmp/demo/cubic/figures/modes_shapes.png"
check "demo figure svg" grep -q '<svg' "$tmp/demo/cubic/figures/modes_shapes.svg"
"$kedyn" run "$examples/spin_up.yaml" -o "$tmp/spin" --report >/dev/null 2>&1; code=$?
check "run --report exits 0" test $code -eq 0
check "summary names animation" grep -q '"animation": "animation.json"' "$tmp/spin/summary.json"
check "dynamics figures" test -s "$tmp/spin/figures/dynamics_beam.11.png" -a -s "$tmp/spin/figures/dynamics_energy.svg"

# A directory written by other means (rigid bodies with outlines and poses, a
# kinematics analysis kedyn plot does not know): plot --report makes its report.
cp -r "$(dirname "$0")/models/report_rigid" "$tmp/rigid"
"$kedyn" plot "$tmp/rigid" --report >"$tmp/rigid.txt" 2>&1; code=$?
check "plot --report exits 0" test $code -eq 0
check "kinematics grouped by body" test -s "$tmp/rigid/figures/kinematics_crank.png" -a -s "$tmp/rigid/figures/kinematics_B.svg"
check "note for the analysis without files" grep -q "note: analysis 2 (sweep): nothing to draw" "$tmp/rigid.txt"

# A mechanism: the slider-crank's kinematics and inverse dynamics animated
# from the recorded poses, with its own figures.
"$kedyn" run "$examples/slider_crank.yaml" -o "$tmp/mech" --report >/dev/null 2>&1; code=$?
check "mechanism run --report exits 0" test $code -eq 0
check "mechanism animation has rigid bodies" grep -q '"type": "rigid"' "$tmp/mech/animation.json"
check "mechanism animation sets" grep -q '"type": "kinematics"' "$tmp/mech/animation.json"
check "mechanism figures" test -s "$tmp/mech/figures/kinematics_positions.png" -a -s "$tmp/mech/figures/inverse_dynamics_jA.svg"
# The README's coupler curve: a plate through three named points, its trajectory figure.
"$kedyn" run "$examples/four_bar_coupler.yaml" -o "$tmp/coupler" --report >/dev/null 2>&1; code=$?
check "coupler run --report exits 0" test $code -eq 0
check "coupler drawn as a plate" grep -q '"name": "coupler", "type": "rigid", .*"closed": true' "$tmp/coupler/animation.json"
check "coupler point traced" grep -q '"name": "coupler", "type": "rigid", .*"trace": \[2\]' "$tmp/coupler/animation.json"
check "coupler curve figure" grep -q 'coupler.P' "$tmp/coupler/figures/kinematics_trajectories.svg"

# A mechanism with an elastic link (one-way dynamics): the rod is recorded in its floating
# frame with its deflection; the summary table describes the mechanism.
"$kedyn" run "$examples/slider_crank_elastic.yaml" -o "$tmp/elastic" --report >/dev/null 2>&1; code=$?
check "elastic link run --report exits 0" test $code -eq 0
check "elastic link animation has a dynamics set" grep -q '"type": "dynamics"' "$tmp/elastic/animation.json"
check "elastic link summary table" grep -q '<th>elastic links</th>' "$tmp/elastic/report.html"
check "elastic link figures" test -s "$tmp/elastic/figures/dynamics_rod_deflection.png" -a -s "$tmp/elastic/figures/dynamics_rod_forces.svg"

# A plate: its modes as coloured surfaces, its mesh in the animation (drawn in 3D).
"$kedyn" run "$examples/plate_simply_supported.yaml" -o "$tmp/plate" --report >/dev/null 2>&1; code=$?
check "plate run --report exits 0" test $code -eq 0
check "plate surface figures" test -s "$tmp/plate/figures/modes_surfaces.png" -a -s "$tmp/plate/figures/modes_surfaces_3.svg"
check "plate drawn as its mesh" grep -q '"name": "plate", "type": "plate", "points": \[\[0,0,0\],.*"paths": \[\[' "$tmp/plate/animation.json"

# A spatial mechanism (the RSSR four-bar): its bodies' poses in 3D, drawn in a projection.
"$kedyn" run "$examples/spatial_rssr.yaml" -o "$tmp/spatial" --report >/dev/null 2>&1; code=$?
check "spatial run --report exits 0" test $code -eq 0
check "spatial animation marked" grep -q '"spatial": true' "$tmp/spatial/animation.json"
check "spatial bodies from their points" grep -q '"name": "crank", "type": "rigid", "points": \[\[0,0,0\],\[0.1,0,0\]\], "paths": \[\[0,1\]\]' "$tmp/spatial/animation.json"
check "spatial coupler rod" grep -q '"rods": \[\[1,1,2,1\]\]' "$tmp/spatial/animation.json"
check "spatial kinematics and inverse dynamics sets" bash -c "grep -q '\"type\": \"kinematics\"' '$tmp/spatial/animation.json' && grep -q '\"type\": \"inverse_dynamics\"' '$tmp/spatial/animation.json'"
# The recorded poses against the RSSR's closed form: the crank's point B at (0.1 cos 2t,
# 0.1 sin 2t, 0) (driver: 2 rad/s about z), the rocker's C in the plane y = 0 on its circle
# about D, and the coupler rod |BC| at its assembled length (6 significant digits in the file).
check "spatial poses: crank, rocker and rod against the closed form" python3 - "$tmp/spatial/animation.json" <<'PY'
import json, math, sys
A = json.load(open(sys.argv[1]))
def glob(P, p): return [P[k] + sum(P[3 + 3 * k + j] * p[j] for j in range(3)) for k in range(3)]
s = A["sets"][0]
L0 = None; err = 0.0
for t, fr in zip(s["t"], s["frames"]):
    B = glob(fr["pose"][1], [0.1, 0, 0]); C = glob(fr["pose"][2], [0.2, 0, 0]); D = glob(fr["pose"][2], [0, 0, 0])
    err = max(err, abs(B[0] - 0.1 * math.cos(2 * t)), abs(B[1] - 0.1 * math.sin(2 * t)), abs(B[2]), abs(C[1]),
              abs(math.dist(C, D) - 0.2), max(abs(D[k] - [0.3, 0, 0.1][k]) for k in range(3)))
    L = math.dist(B, C); L0 = L0 or L; err = max(err, abs(L - L0))
print("spatial poses: largest error %.2e m over %d instants" % (err, len(s["t"])))
sys.exit(0 if len(s["t"]) == 101 and err < 2e-6 else 1)
PY
check "planar animation not marked spatial" bash -c "! grep -q '\"spatial\"' '$tmp/mech/animation.json'"

for r in demo/cubic spin rigid mech elastic plate spatial; do
  page="$tmp/$r/report.html"
  check "$r: no external resources" bash -c "! grep -Eq '(src|href)=\"(https?:)?//' '$page'"
  chrome "$tmp/profile_${r%%/*}" --enable-logging=stderr --v=0 --virtual-time-budget=3000 \
    --dump-dom "file://$page" >"$tmp/dom.html" 2>"$tmp/console.log"
  check "$r: page loads" grep -q 'id="kd-canvas"' "$tmp/dom.html"
  check "$r: no console messages" bash -c "! grep -q 'CONSOLE' '$tmp/console.log'"
  check "$r: no script errors" test "$(state "$tmp/dom.html" errors)" = 0
  check "$r: animation running" test "$(state "$tmp/dom.html" status)" = running
  ticks=$(state "$tmp/dom.html" ticks)
  check "$r: animation advances ($ticks frames in 3 s)" test "${ticks:-0}" -ge 10
  check "$r: bodies drawn" test "$(state "$tmp/dom.html" drawn)" -gt 0
  grep 'CONSOLE' "$tmp/console.log" | head -5
done

# A screenshot of the demo report shows the beam (colour #1f5fbf on the canvas).
chrome "$tmp/profile_shot" --virtual-time-budget=2000 --window-size=1200,900 \
  --screenshot="$tmp/shot.png" "file://$tmp/demo/cubic/report.html" >/dev/null 2>&1
read -r beam nonwhite w h < <("$png_ink" "$tmp/shot.png" 1f5fbf 40 || echo "0 0 0 0")
echo "screenshot ${w}x${h}: $beam beam pixels, $nonwhite non-white"
check "screenshot size" test "$w" -eq 1200 -a "$h" -eq 900
check "screenshot shows the beam" test "$beam" -gt 300
check "screenshot not blank" test "$nonwhite" -gt 5000

# A screenshot of the mechanism's report shows the crank (body 2: #c0392b).
chrome "$tmp/profile_mech" --virtual-time-budget=1400 --window-size=1200,900 \
  --screenshot="$tmp/mech.png" "file://$tmp/mech/report.html" >/dev/null 2>&1
read -r crank nonwhite w h < <("$png_ink" "$tmp/mech.png" c0392b 40 || echo "0 0 0 0")
echo "mechanism screenshot ${w}x${h}: $crank crank pixels, $nonwhite non-white"
check "screenshot shows the crank" test "$crank" -gt 100
test -n "${KEDYN_REPORT_SHOT:-}" && cp "$tmp/mech.png" "$KEDYN_REPORT_SHOT"

# The elastic slider-crank's dynamics (report.html#item=1: the second animation entry) shows the
# rod (body 3: #27ae60), deflected, with the crank.
chrome "$tmp/profile_elastic" --virtual-time-budget=1400 --window-size=1200,900 \
  --screenshot="$tmp/elastic.png" "file://$tmp/elastic/report.html#item=1" >/dev/null 2>&1
read -r rod nonwhite w h < <("$png_ink" "$tmp/elastic.png" 27ae60 40 || echo "0 0 0 0")
read -r crank _ < <("$png_ink" "$tmp/elastic.png" c0392b 40 || echo "0 0")
echo "elastic link screenshot ${w}x${h}: $rod rod pixels, $crank crank pixels, $nonwhite non-white"
check "screenshot shows the elastic rod" test "$rod" -gt 300
check "screenshot shows the crank" test "$crank" -gt 100
test -n "${KEDYN_REPORT_SHOT_ELASTIC:-}" && cp "$tmp/elastic.png" "$KEDYN_REPORT_SHOT_ELASTIC"

# The plate's mode 1 (a bulge, drawn in 3D) shows its mesh lines (body 1: #1f5fbf).
chrome "$tmp/profile_plate" --virtual-time-budget=1400 --window-size=1200,900 \
  --screenshot="$tmp/plate.png" "file://$tmp/plate/report.html" >/dev/null 2>&1
read -r mesh nonwhite w h < <("$png_ink" "$tmp/plate.png" 1f5fbf 40 || echo "0 0 0 0")
echo "plate screenshot ${w}x${h}: $mesh mesh pixels, $nonwhite non-white"
check "screenshot shows the plate's mesh" test "$mesh" -gt 1000

# The planar mechanism keeps its plane views; the spatial one has the projections instead.
chrome "$tmp/profile_mech_dom" --virtual-time-budget=1000 --dump-dom "file://$tmp/mech/report.html" >"$tmp/mech_dom.html" 2>/dev/null
check "planar view selector unchanged" bash -c "grep -q '<option value=\"xy\">x-y</option>' '$tmp/mech_dom.html' && ! grep -q '<option value=\"iso\">' '$tmp/mech_dom.html'"
check "planar page has no 3D view state" test -z "$(state "$tmp/mech_dom.html" view)"
chrome "$tmp/profile_spatial_dom" --virtual-time-budget=1000 --dump-dom "file://$tmp/spatial/report.html#view=side" >"$tmp/spatial_dom.html" 2>/dev/null
check "spatial view selector" grep -q '<option value="iso">isometric</option>' "$tmp/spatial_dom.html"
check "spatial page opens in the side view" test "$(state "$tmp/spatial_dom.html" view)" = "side 90 0"

# The RSSR at t = 0 (paused: #frame=0) lies in the x-z plane with the crank along x: seen from
# the top the crank (body 2: #c0392b) is a bar 0.1 m long, from the side (along x) it shrinks to
# its joints; the rocker (body 3: #27ae60), in the x-z plane, is a bar seen from the front.
for v in top side front; do
  chrome "$tmp/profile_spatial_$v" --virtual-time-budget=1400 --window-size=1200,900 \
    --screenshot="$tmp/spatial_$v.png" "file://$tmp/spatial/report.html#view=$v&frame=0" >/dev/null 2>&1
done
read -r crank_top nonwhite w h < <("$png_ink" "$tmp/spatial_top.png" c0392b 40 || echo "0 0 0 0")
read -r crank_side _ < <("$png_ink" "$tmp/spatial_side.png" c0392b 40 || echo "0 0")
read -r rocker_front _ < <("$png_ink" "$tmp/spatial_front.png" 27ae60 40 || echo "0 0")
read -r rod_front _ < <("$png_ink" "$tmp/spatial_front.png" 806000 30 || echo "0 0")
echo "spatial screenshots: crank $crank_top pixels from the top, $crank_side from the side; rocker $rocker_front, rod $rod_front from the front"
check "spatial screenshot shows the crank from the top" test "$crank_top" -gt 200
check "the view selector changes the picture" test "$crank_top" -gt $((3 * crank_side))
check "spatial screenshot shows the rocker from the front" test "$rocker_front" -gt 300
check "spatial screenshot shows the coupler rod" test "$rod_front" -gt 300
check "the views differ" bash -c "! cmp -s '$tmp/spatial_top.png' '$tmp/spatial_side.png'"
# Dragging the drawing turns it: from the isometric view (azimuth 45, elevation 35.26 deg) a drag
# by (100, 50) pixels (pointer events on the canvas, #drag=) gives azimuth 5, elevation 55 deg.
chrome "$tmp/profile_spatial_drag" --virtual-time-budget=1000 --dump-dom \
  "file://$tmp/spatial/report.html#frame=0&drag=100,50" >"$tmp/spatial_drag.html" 2>/dev/null
check "dragging turns the view" test "$(state "$tmp/spatial_drag.html" view)" = "free 5 55"
check "no script errors after the drag" test "$(state "$tmp/spatial_drag.html" errors)" = 0
for v in iso drag; do
  hash="view=iso&frame=0"; test $v = drag && hash="frame=0&drag=100,50"
  chrome "$tmp/profile_spatial_shot_$v" --virtual-time-budget=1400 --window-size=1200,900 \
    --screenshot="$tmp/spatial_$v.png" "file://$tmp/spatial/report.html#$hash" >/dev/null 2>&1
done
read -r rocker_drag _ < <("$png_ink" "$tmp/spatial_drag.png" 27ae60 40 || echo "0 0")
check "the turned view is drawn and differs" bash -c "test $rocker_drag -gt 300 && ! cmp -s '$tmp/spatial_iso.png' '$tmp/spatial_drag.png'"
test -n "${KEDYN_REPORT_SHOT_SPATIAL:-}" && cp "$tmp/spatial_front.png" "$KEDYN_REPORT_SHOT_SPATIAL"

finish
