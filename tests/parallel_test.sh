#!/usr/bin/env bash
# Parallel studies (docs/cli.md, "Parallel studies"): --jobs and KEDYN_JOBS checked; the results
# of a sweep, a Campbell diagram, stability maps and the instants of modes_along_motion by 2 and
# 3 threads identical, byte for byte, to those of one thread (summary.json but for its wall
# times); --resume after a kill -9 takes the cases recorded complete as they are, distrusts a
# record cut short, ignores the records of another model, and ends with the files of an
# uninterrupted run.
# usage: parallel_test.sh KEDYN SOURCE_DIR
set -u
kedyn=$1
src=$2
examples=$src/examples
. "$(dirname "$0")/lib.sh"
# --jobs and KEDYN_JOBS: a whole number of threads, 1 or more; nothing written otherwise
for bad in 0 -1 two 1.5 ""; do
  "$kedyn" run "$examples/rotating_blade.yaml" -o "$tmp/bad" --jobs "$bad" >/dev/null 2>"$tmp/bad.err"; code=$?
  check "--jobs '$bad' exits 2" test $code -eq 2
  check "--jobs '$bad' says why" grep -q "error\|--jobs needs a whole number of threads, 1 or more" "$tmp/bad.err"
  check "--jobs '$bad' writes nothing" test ! -e "$tmp/bad"
done
KEDYN_JOBS=0 "$kedyn" run "$examples/rotating_blade.yaml" -o "$tmp/bad" >/dev/null 2>"$tmp/bad.err"; code=$?
check "KEDYN_JOBS=0 exits 2" test $code -eq 2
check "KEDYN_JOBS=0 says why" grep -q "KEDYN_JOBS must be a whole number of threads, 1 or more (got '0')" "$tmp/bad.err"
check "KEDYN_JOBS=0 writes nothing" test ! -e "$tmp/bad"

# threads: identical to one thread, bit for bit
# a sweep of plate modes by the Lanczos solver (ARPACK: one solve at a time in the process)
sed 's/  - {type: modes, count: 15}/  - type: sweep\n    set: bodies.plate.thickness\n    values: [0.001, 0.002, 0.003]\n    analysis: {type: modes, count: 6, solver: lanczos}/' \
  "$examples/plate_simply_supported.yaml" >"$tmp/plate_sweep.yaml"
# modes along the motion of an elastic link, over the crank speed: a sweep of modes_along_motion
python3 - "$examples/wind_pump_elastic.yaml" "$tmp/pump_sweep.yaml" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index("analyses:")
k = s.find("\noutput:", i)
s = s[:i] + """analyses:
  - type: sweep
    set: analysis.speed
    values: [10.472, 12.566, 14.661, 16.755]
    analysis: {type: modes_along_motion, speed: 10.472, steps: 60, count: 6, settle: 3.0}
""" + (s[k + 1:] if k > 0 else "")
open(sys.argv[2], "w").write(s)
PY
for model in rotating_bar_studies rotating_blade rotating_cantilever_hub "$tmp/plate_sweep" "$tmp/pump_sweep"; do
  case $model in /*) ;; *) model=$examples/$model ;; esac
  "$kedyn" run "$model.yaml" -o "$tmp/$(basename "$model").1" --jobs 1 --quiet >/dev/null 2>&1
  check "$(basename "$model") --jobs 1 exits 0" test $? -eq 0
  for j in 2 3; do
    "$kedyn" run "$model.yaml" -o "$tmp/$(basename "$model").$j" --jobs $j --quiet >/dev/null 2>&1
    check "$model --jobs $j exits 0" test $? -eq 0
    check "$model --jobs $j = --jobs 1, byte for byte" same_results "$tmp/$(basename "$model").1" "$tmp/$(basename "$model").$j"
  done
done
# the instants of one modes_along_motion (each computed by a thread's own copy of the link's
# model, the modes followed in instant order): the examples with elastic links as written
# (the refined gyroscopic route), the symmetric route and the dense state-space route, every
# file byte for byte; 1 thread against 2 and 3
sed 's/count: 4}/count: 4, gyroscopic: dense}/' "$examples/slider_crank_elastic.yaml" >"$tmp/crank_dense.yaml"
sed 's/count: 4}/count: 4, gyroscopic: false}/' "$examples/slider_crank_elastic.yaml" >"$tmp/crank_sym.yaml"
grep -q 'gyroscopic: dense' "$tmp/crank_dense.yaml" && grep -q 'gyroscopic: false' "$tmp/crank_sym.yaml"
check "modes_along_motion route variants made" test $? -eq 0
for model in "$examples/wind_pump_elastic" "$examples/wiper_elastic" "$examples/slider_crank_elastic" \
             "$tmp/crank_dense" "$tmp/crank_sym"; do
  b=along_$(basename "$model")
  "$kedyn" run "$model.yaml" -o "$tmp/$b.1" --jobs 1 --quiet >/dev/null 2>&1
  check "$b --jobs 1 exits 0" test $? -eq 0
  check "$b has modes_along_motion.csv" test -s "$tmp/$b.1/modes_along_motion.csv"
  for j in 2 3; do
    "$kedyn" run "$model.yaml" -o "$tmp/$b.$j" --jobs $j --quiet >/dev/null 2>&1
    check "$b --jobs $j exits 0" test $? -eq 0
    check "$b --jobs $j = --jobs 1, byte for byte" same_results "$tmp/$b.1" "$tmp/$b.$j"
    check "$b --jobs $j: no journal left" test ! -e "$tmp/$b.$j/.kedyn-cases"
  done
done
check "dense route differs from the symmetric one" bash -c "! cmp -s '$tmp/along_crank_dense.1/modes_along_motion.csv' '$tmp/along_crank_sym.1/modes_along_motion.csv'"
# --resume after kill -9 in the middle of the instants of the second modes_along_motion: the
# first is committed from its journal, the second's recorded instants are taken as they are
"$kedyn" run "$examples/wind_pump_elastic.yaml" -o "$tmp/pump_killed" --jobs 2 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [ "$(stat -c %s "$tmp/pump_killed/.kedyn-cases/analysis2.journal" 2>/dev/null || echo 0)" -gt 100000 ] && break
  sleep 0.02
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
check "wind pump killed in its second modes_along_motion" test -s "$tmp/pump_killed/.kedyn-cases/analysis2.journal" -a ! -e "$tmp/pump_killed/modes_along_motion_2.csv"
"$kedyn" run "$examples/wind_pump_elastic.yaml" -o "$tmp/pump_killed" --resume --jobs 2 --quiet >/dev/null 2>&1
check "wind pump --resume exits 0" test $? -eq 0
check "wind pump --resume = an uninterrupted run, byte for byte" same_results "$tmp/along_wind_pump_elastic.1" "$tmp/pump_killed"

"$kedyn" run "$src/bench/parallel_stability40.yaml" -o "$tmp/map.1" --jobs 1 --quiet >"$tmp/map.1.out" 2>/dev/null
# --quiet prints nothing on stdout (docs/cli.md): not the map's table, which a run without it prints
check "40 x 40 map --quiet: nothing on stdout" test ! -s "$tmp/map.1.out"
"$kedyn" run "$src/bench/parallel_stability40.yaml" -o "$tmp/map.loud" --jobs 1 >"$tmp/map.loud.out" 2>/dev/null
check "40 x 40 map without --quiet: its table on stdout" test "$(wc -l <"$tmp/map.loud.out")" -gt 1600
KEDYN_JOBS=2 "$kedyn" run "$src/bench/parallel_stability40.yaml" -o "$tmp/map.2" --quiet >/dev/null 2>&1
check "40 x 40 map: KEDYN_JOBS=2 = --jobs 1, byte for byte" same_results "$tmp/map.1" "$tmp/map.2"
check "40 x 40 map: 1 600 rows" test "$(wc -l <"$tmp/map.1/stability.csv")" -eq 1601
check "no journal left after a complete run" test ! -e "$tmp/map.2/.kedyn-cases"
# the map's rows are printf's "%.10g" of its grid and speeds (formatted by the threads that
# computed the points): the grid columns against the model's hubs and lengths; each speed in
# its own %.10g form and within the 10 digits' rounding (5e-10) of summary.json's 12-digit value
rows_printf() {  # rows_printf CSV SUMMARY
  python3 - "$1" "$2" <<'PY'
import json, sys
rows = [l.rstrip("\n").split(",") for l in open(sys.argv[1])][1:]
w = [x for row in json.load(open(sys.argv[2]))["analyses"][0]["omega_cr_rad_s"] for x in row]
hubs = [i / 100 for i in range(40)]; lengths = [0.3 + i / 100 for i in range(40)]
ok = len(rows) == 1600 and len(w) == 1600
for k, r in enumerate(rows):
    ok = ok and r[0] == "%.10g" % hubs[k // 40] and r[1] == "%.10g" % lengths[k % 40]
    if r[2] == "inf":
        ok = ok and w[k] is None
    else:
        ok = ok and r[2] == "%.10g" % float(r[2]) and abs(float(r[2]) - w[k]) <= 5.1e-10 * abs(w[k])
sys.exit(0 if ok else 1)
PY
}
check "40 x 40 map: rows as printf's %.10g of the grid and speeds" rows_printf "$tmp/map.2/stability.csv" "$tmp/map.2/summary.json"
# killed mid-map (160 x 160 points, 2 threads: long enough for the kill to land mid-map on a loaded
# machine): the rows so far under a temporary name only, the final name absent; --resume ends with
# the file of an uninterrupted run
python3 - "$src/bench/parallel_stability40.yaml" "$tmp/map160.yaml" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r"hubs: \[[^]]*\]", "hubs: [" + ", ".join("%.4f" % (i * 0.0025) for i in range(160)) + "]", s)
s = re.sub(r"lengths: \[[^]]*\]", "lengths: [" + ", ".join("%.4f" % (0.3 + i * 0.0025) for i in range(160)) + "]", s)
open(sys.argv[2], "w").write(s)
PY
"$kedyn" run "$tmp/map160.yaml" -o "$tmp/map160.1" --jobs 1 --quiet >/dev/null 2>&1
"$kedyn" run "$tmp/map160.yaml" -o "$tmp/map160.k" --jobs 2 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 1000); do
  [ "$(stat -c %s "$tmp/map160.k/.kedyn-cases/analysis1.journal" 2>/dev/null || echo 0)" -gt 20000 ] && break
  sleep 0.005
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
check "map killed mid-study: no stability.csv" test ! -e "$tmp/map160.k/stability.csv"
check "map killed mid-study: its rows streamed to the temporary file" \
  test "$(cat "$tmp"/map160.k/stability.csv.tmp* 2>/dev/null | wc -l)" -gt 1
"$kedyn" run "$tmp/map160.yaml" -o "$tmp/map160.k" --resume --jobs 2 --quiet >/dev/null 2>&1
check "map --resume exits 0" test $? -eq 0
check "map --resume = an uninterrupted run, byte for byte" same_results "$tmp/map160.1" "$tmp/map160.k"
check "map --resume: no temporary file left" test -z "$(ls "$tmp/map160.k" | grep tmp)"

# runs that fail (a forcing of 1e308 N overflows) do not stop the others, on any number of threads
sed 's/set: forces.1.value.sine.omega/set: forces.1.value.sine.amplitude/; s/values: \[[^]]*\]/values: [10, 1.0e308, 20, 1.0e308, 30]/' \
  "$src/bench/parallel_sweep64.yaml" >"$tmp/fail.yaml"
for j in 1 2 3; do
  "$kedyn" run "$tmp/fail.yaml" -o "$tmp/fail.$j" --jobs $j --quiet >/dev/null 2>"$tmp/fail.$j.err"
  check "failing runs, --jobs $j: exit 3" test $? -eq 3
  check "failing runs, --jobs $j: says how many" grep -q "(2 of 5 runs failed; the others are complete)" "$tmp/fail.$j.err"
  check "failing runs, --jobs $j: statuses in summary.json" \
    test "$(grep -o '"status": "[a-z]*"' "$tmp/fail.$j/summary.json" | tr '\n' ' ')" = \
    '"status": "numeric" "status": "ok" "status": "numeric" "status": "ok" "status": "numeric" "status": "ok" '
done
check "failing runs: --jobs 2 = --jobs 1" same_results "$tmp/fail.1" "$tmp/fail.2"
check "failing runs: --jobs 3 = --jobs 1" same_results "$tmp/fail.1" "$tmp/fail.3"

# --resume after kill -9: 64 runs of the seed 001 bar
# (each run over 1 s rather than 0.1 s, a row every 100 steps: the study lasts about a second, so
# that the kills below, sent once a few runs are written, come before its end)
sweep=$tmp/sweep64_long.yaml
sed 's/t_end: 0.1,/t_end: 1.0,/; s/output_every: 10}/output_every: 100}/' "$src/bench/parallel_sweep64.yaml" >"$sweep"
check "the long sweep differs from the benchmark's" bash -c "! cmp -s '$sweep' '$src/bench/parallel_sweep64.yaml'"
"$kedyn" run "$sweep" -o "$tmp/ref" --jobs 2 --quiet >/dev/null 2>&1
check "64-case sweep exits 0" test $? -eq 0
"$kedyn" run "$sweep" -o "$tmp/killed" --jobs 1 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 400); do  # until 8 runs are written
  [ "$(ls "$tmp/killed" 2>/dev/null | grep -c '^sweep_v.*csv$')" -ge 8 ] && break
  sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
nbefore=$(ls "$tmp/killed" | grep -c '^sweep_v.*csv$')
check "killed mid-sweep (runs written: $nbefore of 64)" test "$nbefore" -ge 8 -a "$nbefore" -lt 64
check "the journal is there" test -s "$tmp/killed/.kedyn-cases/analysis1.journal"
check "summary.json of the killed run says incomplete" grep -q '"complete": false' "$tmp/killed/summary.json"
stat -c '%n %Y %i' "$tmp/killed"/sweep_v*.csv | sort >"$tmp/before.txt"
"$kedyn" run "$sweep" -o "$tmp/killed" --resume --quiet >/dev/null 2>&1
check "--resume exits 0" test $? -eq 0
check "--resume = an uninterrupted run, byte for byte" same_results "$tmp/ref" "$tmp/killed"
stat -c '%n %Y %i' "$tmp/killed"/sweep_v*.csv | sort >"$tmp/after.txt"
kept=$(comm -12 "$tmp/before.txt" "$tmp/after.txt" | wc -l)
# a run killed between its file and its record is computed again: at most one (one thread)
check "--resume kept the runs recorded complete ($kept of $nbefore)" test "$kept" -ge $((nbefore - 1))

# SIGINT with 2 threads: the runs in flight stop at their next row (kept, marked failed, not
# recorded); --resume computes them again
"$kedyn" run "$sweep" -o "$tmp/int" --jobs 2 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 400); do
  [ "$(ls "$tmp/int" 2>/dev/null | grep -c '^sweep_v.*csv$')" -ge 6 ] && break
  sleep 0.05
done
kill -INT $pid 2>/dev/null
wait $pid
check "SIGINT mid-sweep with 2 threads exits 130" test $? -eq 130
"$kedyn" run "$sweep" -o "$tmp/int" --resume --quiet >/dev/null 2>&1
check "--resume after SIGINT = an uninterrupted run, byte for byte" same_results "$tmp/ref" "$tmp/int"

# a record cut short (a kill in the middle of writing it) is not trusted
"$kedyn" run "$sweep" -o "$tmp/cut" --jobs 2 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 400); do
  [ "$(ls "$tmp/cut" 2>/dev/null | grep -c '^sweep_v.*csv$')" -ge 6 ] && break
  sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
j=$tmp/cut/.kedyn-cases/analysis1.journal
check "journal of the second kill" test -s "$j"
truncate -s -7 "$j"
printf 'KDC1 garbage' >>"$j"
"$kedyn" run "$sweep" -o "$tmp/cut" --resume --jobs 2 --quiet >/dev/null 2>&1
check "--resume after a cut record exits 0" test $? -eq 0
check "--resume after a cut record = an uninterrupted run" same_results "$tmp/ref" "$tmp/cut"

# the records of another model are ignored: a changed forcing amplitude recomputes every run
sed 's/amplitude: 10,/amplitude: 20,/' "$sweep" >"$tmp/sweep20.yaml"
"$kedyn" run "$tmp/sweep20.yaml" -o "$tmp/ref20" --quiet >/dev/null 2>&1
cp -r "$tmp/ref" "$tmp/other" && mkdir -p "$tmp/other/.kedyn-cases"
"$kedyn" run "$sweep" -o "$tmp/half" --jobs 2 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 400); do
  [ "$(ls "$tmp/half" 2>/dev/null | grep -c '^sweep_v.*csv$')" -ge 6 ] && break
  sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
cp "$tmp/sweep20.yaml" "$tmp/half.yaml"
"$kedyn" run "$tmp/sweep20.yaml" -o "$tmp/half" --resume --quiet >/dev/null 2>&1
check "--resume of another model recomputes = its own run" same_results "$tmp/ref20" "$tmp/half"
check "amplitude 20 differs from 10" bash -c "! cmp -s '$tmp/ref/sweep_v1_dynamics.csv' '$tmp/ref20/sweep_v1_dynamics.csv'"

finish parallel_test
