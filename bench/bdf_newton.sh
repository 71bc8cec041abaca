#!/usr/bin/env bash
# CPU of cvode-bdf's Newton corrector against the fixed-point corrector, and of two builds of
# kedyn against each other, on the cases of docs/performance.md ("cvode-bdf at loose tolerances",
# "The reduced Newton matrix"): the free planar four-bar (100 s), the free RSSR loop (20 s), the
# rigid spatial wiper (1.2 s) and the two-way wiper from its static state (0.005 s), at rtol 1e-3,
# 1e-6 and 1e-9 (atol = rtol / 10).
# usage: bench/bdf_newton.sh KEDYN_OLD KEDYN_NEW [REPEATS] [EXAMPLES_DIR]
# Per case and rtol, three variants run back to back, REPEATS rounds (default 5): fixed point
# (KEDYN_NEW, nonlinear_solver: fixed-point), Newton with KEDYN_OLD, Newton with KEDYN_NEW. Prints
# steps / rhs_evals (summary.json), the best user CPU of the whole process (getrusage) and the
# best wall time of the dynamics analysis alone (summary.json wall_s) of each, the ratios old /
# new Newton and new Newton / fixed point of both, and the largest difference of the old and new
# Newton runs in any body position (m) over the output rows, and of each against a reference run
# (fixed point at rtol 1e-11, atol 1e-12).
set -euo pipefail
old=$(readlink -f "$1")
new=$(readlink -f "$2")
repeats=${3:-5}
examples=$(readlink -f "${4:-examples}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$examples/data" "$tmp/data"
echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), best of $repeats"
# model NAME FILE T D R PREFIX EXTRA: FILE with its analyses replaced by one cvode-bdf dynamics run
# (PREFIX and EXTRA: more keys before t_end and after atol)
model() {
    sed '/^analyses:/,$d' "$examples/$2" > "$tmp/$1.yaml"
    printf 'analyses:\n  - {type: dynamics, %st_end: %s, dt: %s, integrator: cvode-bdf, rtol: %s, atol: %s%s}\n' \
        "$6" "$3" "$4" "$5" "$(python3 -c "print($5 / 10)")" "$7" >> "$tmp/$1.yaml"
}
# run BIN MODEL OUT: "CPU WALL", the user CPU seconds of the process (getrusage of the child) and
# the wall time of the dynamics analysis (summary.json wall_s: without start-up and loading)
run() {
    python3 -c "
import json, resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
w = json.load(open(sys.argv[-1] + '/summary.json'))['analyses'][0]['wall_s']
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime, w)" "$1" run "$2" -o "$3"
}
# best A B: the smaller pair element-wise ("CPU WALL")
best() { python3 -c "import sys; a, b = sys.argv[1].split(), sys.argv[2].split(); print(min(float(a[0]), float(b[0])), min(float(a[1]), float(b[1])))" "$1" "$2"; }
# stats SUMMARY: "steps / rhs_evals" of the dynamics analysis
stats() {
    python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['analyses'][0]
print('%d / %d' % (a['steps'], a['rhs_evals']))" "$1"
}
posdiff() {
    python3 - "$1" "$2" <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))
b = list(csv.reader(open(sys.argv[2])))
cols = [i for i, n in enumerate(a[0]) if n.count('.') == 1 and n.split('.')[1] in ('x', 'y', 'z')]
print('%.1e' % max(abs(float(r[i]) - float(s[i])) for r, s in zip(a[1:], b[1:]) for i in cols))
PY
}
printf '%-14s %5s | %-15s %6s %6s | %-15s %6s %6s | %-15s %6s %6s | %-11s | %-11s | %7s %7s %7s\n' case rtol "fixed point" CPU wall \
    "old Newton" CPU wall "new Newton" CPU wall "old/new" "new/fixed" "old-new" "old-ref" "new-ref"
cases=("four-bar four_bar_free.yaml 100 0.05"
       "RSSR spatial_rssr_free.yaml 20 0.02"
       "wiper wiper_spatial.yaml 1.2 0.005"
       "two-way-wiper wiper_spatial_two_way.yaml 0.005 5e-5 coupling:two-way")
for c in "${cases[@]}"; do
    read -r name file T D extra <<< "$c"
    pre=""
    [[ -n "${extra:-}" ]] && pre="coupling: two-way, initial: static, "
    # the reference: fixed point at rtol 1e-11 (outputs at the same instants)
    model r "$file" "$T" "$D" 1e-11 "$pre" ", nonlinear_solver: fixed-point"
    run "$new" "$tmp/r.yaml" "$tmp/or" > /dev/null
    for R in 1e-3 1e-6 1e-9; do
        model n "$file" "$T" "$D" "$R" "$pre" ""
        model f "$file" "$T" "$D" "$R" "$pre" ", nonlinear_solver: fixed-point"
        bf="1e9 1e9" bo="1e9 1e9" bn="1e9 1e9"
        for ((i = 0; i < repeats; i++)); do
            bf=$(best "$bf" "$(run "$new" "$tmp/f.yaml" "$tmp/of")")
            bo=$(best "$bo" "$(run "$old" "$tmp/n.yaml" "$tmp/oo")")
            bn=$(best "$bn" "$(run "$new" "$tmp/n.yaml" "$tmp/on")")
        done
        read -r cf wf <<< "$bf"
        read -r co wo <<< "$bo"
        read -r cn wn <<< "$bn"
        printf '%-14s %5s | %-15s %6.3f %6.3f | %-15s %6.3f %6.3f | %-15s %6.3f %6.3f | %5.2f %5.2f | %5.2f %5.2f | %7s %7s %7s\n' \
            "$name" "$R" "$(stats "$tmp/of/summary.json")" "$cf" "$wf" "$(stats "$tmp/oo/summary.json")" "$co" "$wo" \
            "$(stats "$tmp/on/summary.json")" "$cn" "$wn" "$(python3 -c "print($co / $cn)")" \
            "$(python3 -c "print($wo / $wn)")" "$(python3 -c "print($cn / $cf)")" "$(python3 -c "print($wn / $wf)")" \
            "$(posdiff "$tmp/oo/dynamics.csv" "$tmp/on/dynamics.csv")" \
            "$(posdiff "$tmp/or/dynamics.csv" "$tmp/oo/dynamics.csv")" "$(posdiff "$tmp/or/dynamics.csv" "$tmp/on/dynamics.csv")"
    done
done
