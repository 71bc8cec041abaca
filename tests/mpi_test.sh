#!/usr/bin/env bash
# MPI ranks over the cases of a study (docs/cli.md, "Parallel studies"): `mpirun -n 2` and `-n 3`
# give the files of a serial run, byte for byte (summary.json but for its wall times), rank 0
# alone writing them (studies, and the instants of modes_along_motion); a model without a sweep,
# campbell, stability or modes_along_motion runs on rank 0 and says so;
# a rank killed mid-study, without and with `mpirun --enable-recovery` (then the others finish
# and the lost cases are reported), a rank silent beyond the deadline (KEDYN_MPI_TIMEOUT), and
# --resume after it; the kedyn executable itself is not
# linked with libmpi. Skipped (77) without mpirun or
# kedyn_mpi.so (-DKEDYN_MPI=ON). usage: mpi_test.sh KEDYN SOURCE_DIR
set -u
kedyn=$1
src=$2
examples=$src/examples
if ! command -v mpirun >/dev/null 2>&1; then
  echo "mpi_test: skipped: no mpirun (Debian: openmpi-bin)"
  exit 77
fi
if [ ! -e "$(dirname "$kedyn")/kedyn_mpi.so" ]; then
  echo "mpi_test: skipped: no kedyn_mpi.so next to kedyn (configure with -DKEDYN_MPI=ON)"
  exit 77
fi
. "$(dirname "$0")/lib.sh"
# Open MPI's own allocations at exit are not freed (LeakSanitizer would fail a sanitized build
# on them); memory errors are still checked, and kedyn's leaks by the tests without MPI.
# The ranks' private directories (a sweep run's files before they go to rank 0) in $tmp/rtmp.
mkdir -p "$tmp/rtmp"
mpi="mpirun --oversubscribe --allow-run-as-root -x ASAN_OPTIONS=detect_leaks=0 -x TMPDIR=$tmp/rtmp"
check "kedyn is not linked with libmpi" bash -c "! ldd '$kedyn' | grep -q libmpi"
# a sweep of plate modes: more files per run (VTK) than the report lists, all shipped to rank 0
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
# the instants of one modes_along_motion over the ranks (each rank solves the rigid motion
# itself), the refined and the dense gyroscopic routes
sed 's/count: 4}/count: 4, gyroscopic: dense}/' "$examples/slider_crank_elastic.yaml" >"$tmp/crank_dense.yaml"
for model in "$examples/rotating_bar_studies.yaml" "$examples/rotating_blade.yaml" \
             "$examples/rotating_cantilever_hub.yaml" "$src/bench/parallel_stability40.yaml" "$tmp/plate_sweep.yaml" \
             "$tmp/pump_sweep.yaml" "$examples/slider_crank_elastic.yaml" "$tmp/crank_dense.yaml"; do
  name=$(basename "$model" .yaml)
  "$kedyn" run "$model" -o "$tmp/$name.serial" --jobs 1 --quiet >/dev/null 2>&1
  check "$name serial exits 0" test $? -eq 0
  for p in 2 3; do
    (cd "$tmp" && $mpi -n $p "$kedyn" run "$model" -o "$tmp/$name.mpi$p" --quiet >"$tmp/$name.mpi$p.out" 2>&1)
    check "$name: mpirun -n $p exits 0" test $? -eq 0
    check "$name: mpirun -n $p = serial, byte for byte" same_results -A "$tmp/$name.serial" "$tmp/$name.mpi$p"
  done
done
# without --quiet the results are printed by rank 0 only
(cd "$tmp" && $mpi -n 2 "$kedyn" run "$examples/rotating_blade.yaml" -o "$tmp/loud" >"$tmp/loud.out" 2>&1)
check "mpirun -n 2: one 'results:' line (rank 0)" test "$(grep -c '^results: ' "$tmp/loud.out")" -eq 1
check "the ranks removed their private directories" test -z "$(ls -A "$tmp/rtmp")"
# where a rank's sweep files go (docs/cli.md, "MPI"): a rank that sees rank 0's OUTDIR writes
# them beside the journals and sends their names (its results: a report, about 3 kB a run), rank 0
# renames them in; a rank that does not (here: started in another directory, OUTDIR relative)
# sends their bytes (a run's CSV: 58 kB). The timelines of KEDYN_MPI_TRACE tell the bytes sent.
sent_max() { awk '$1 == "trace" && $2 > 0 && $4 == "i" { if ($6 > m) m = $6 } END { print m + 0 }' "$1"; }
"$kedyn" run "$src/bench/parallel_sweep64.yaml" -o "$tmp/s64.serial" --jobs 1 --quiet >/dev/null 2>&1
(cd "$tmp" && $mpi -x KEDYN_MPI_TRACE=1 -n 2 "$kedyn" run "$src/bench/parallel_sweep64.yaml" -o "$tmp/s64.shared" --quiet \
  >/dev/null 2>"$tmp/s64.shared.err")
check "sweep, rank 1 sees OUTDIR: = serial, byte for byte" same_results -A "$tmp/s64.serial" "$tmp/s64.shared"
check "sweep, rank 1 sees OUTDIR: results of under 8 kB sent ($(sent_max "$tmp/s64.shared.err") B)" \
  test "$(sent_max "$tmp/s64.shared.err")" -gt 0 -a "$(sent_max "$tmp/s64.shared.err")" -lt 8000
check "sweep, rank 1 sees OUTDIR: its directory removed at the end" test ! -e "$tmp/s64.shared/.kedyn-cases"
mkdir -p "$tmp/wa" "$tmp/wb"
$mpi -x KEDYN_MPI_TRACE=1 -n 1 -wdir "$tmp/wa" "$kedyn" run "$src/bench/parallel_sweep64.yaml" -o out --quiet : \
  -x KEDYN_MPI_TRACE=1 -n 1 -wdir "$tmp/wb" "$kedyn" run "$src/bench/parallel_sweep64.yaml" -o out --quiet >/dev/null 2>"$tmp/s64.apart.err"
check "sweep, rank 1 elsewhere: = serial, byte for byte" same_results -A "$tmp/s64.serial" "$tmp/wa/out"
check "sweep, rank 1 elsewhere: the files' bytes sent ($(sent_max "$tmp/s64.apart.err") B)" \
  test "$(sent_max "$tmp/s64.apart.err")" -gt 50000
check "sweep, rank 1 elsewhere: wrote nothing in its directory" test ! -e "$tmp/wb/out"
check "KEDYN_MPI_TRACE: bench/mpi_timeline.py reads the timelines" \
  bash -c "python3 '$src/bench/mpi_timeline.py' '$tmp/s64.shared.err' | grep -q '^rank 1: [0-9]* cases, computing'"
# runs that fail on a rank (a forcing of 1e308 N overflows) are reported, the others kept
sed 's/set: forces.1.value.sine.omega/set: forces.1.value.sine.amplitude/; s/values: \[[^]]*\]/values: [10, 1.0e308, 20, 1.0e308, 30]/' \
  "$src/bench/parallel_sweep64.yaml" >"$tmp/fail.yaml"
"$kedyn" run "$tmp/fail.yaml" -o "$tmp/fail.serial" --jobs 1 --quiet >/dev/null 2>&1
(cd "$tmp" && $mpi -n 3 "$kedyn" run "$tmp/fail.yaml" -o "$tmp/fail.mpi" --quiet >/dev/null 2>"$tmp/fail.err")
check "failing runs under mpirun -n 3: exit non-zero" test $? -ne 0
check "failing runs under mpirun -n 3: says how many" grep -q "(2 of 5 runs failed; the others are complete)" "$tmp/fail.err"
check "failing runs under mpirun -n 3 = serial, byte for byte" same_results -A "$tmp/fail.serial" "$tmp/fail.mpi"

# a model with no study: rank 0 runs it and says so
(cd "$tmp" && $mpi -n 2 "$kedyn" run "$examples/cantilever.yaml" -o "$tmp/cant" --quiet >"$tmp/cant.out" 2>&1)
check "no study: exits 0" test $? -eq 0
check "no study: says it runs on rank 0" grep -q "has no sweep, campbell, stability or modes_along_motion analysis: it runs on rank 0 alone" "$tmp/cant.out"
check "no study: modes.csv written" test -s "$tmp/cant/modes.csv"
# a rank with nothing to do waits without spinning (docs/cli.md, "Parallel studies"): over a run of
# T seconds on rank 0 alone (the seed 001 bar, 25 elements, t_end 20 s), rank 1 sleeps ever longer
# (1 % of its wait): its voluntary context switches (one a sleep, KEDYN_MPI_TRACE's 'W' events at
# the MPI open and close) stay under 1500 + 50 T (measured: 1 400-2 600 for T = 33-51 s at load
# 20-28); polling every millisecond makes up to 1000 T (260 T at load 28, failing it)
sed -e 's/elements: 10,/elements: 25,/' -e 's/t_end: 0.1,/t_end: 20.0,/' "$examples/rotating_bar.yaml" >"$tmp/idle.yaml"
(cd "$tmp" && $mpi -x KEDYN_MPI_TRACE=1 -n 2 "$kedyn" run "$tmp/idle.yaml" -o "$tmp/idle" --quiet >/dev/null 2>"$tmp/idle.err")
idle=$(awk '$1 == "trace" && $2 == 1 && $4 == "W" { n++; w[n] = $5; t[n] = $3 }
  END { if (n >= 2) printf "%d %.3f", w[n] - w[1], t[n] - t[1]; else print "-1 0" }' "$tmp/idle.err")
check "no study, rank 1 idle: ${idle% *} sleeps in ${idle#* } s (< 1500 + 50 T)" \
  awk -v w="${idle% *}" -v t="${idle#* }" 'BEGIN { exit !(w >= 0 && t > 0 && w < 1500 + 50 * t) }'
# --jobs 0 under mpirun: the same usage error on every rank
(cd "$tmp" && $mpi -n 2 "$kedyn" run "$examples/rotating_blade.yaml" -o "$tmp/bad" --jobs 0 >"$tmp/bad.out" 2>&1)
check "mpirun --jobs 0: exits non-zero" test $? -ne 0
check "mpirun --jobs 0: writes nothing" test ! -e "$tmp/bad"

# a rank killed mid-study: mpirun ends the job; the journal keeps the committed runs and
# `mpirun ... --resume` computes the others: the files of an uninterrupted serial run
python3 - "$src/bench/parallel_sweep64.yaml" "$tmp/sweep256.yaml" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r"values: \[[^]]*\]", "values: [" + ", ".join(str(50 + k) for k in range(256)) + "]", s)
open(sys.argv[2], "w").write(s)
PY
"$kedyn" run "$tmp/sweep256.yaml" -o "$tmp/s256.serial" --jobs 2 --quiet >/dev/null 2>&1
(cd "$tmp" && $mpi -n 3 "$kedyn" run "$tmp/sweep256.yaml" -o "$tmp/s256" --quiet >"$tmp/s256.out" 2>&1) &
launcher=$!
for _ in $(seq 1 600); do  # until 20 runs are written
  [ "$(ls "$tmp/s256" 2>/dev/null | grep -c '^sweep_v.*csv$')" -ge 20 ] && break
  sleep 0.05
done
victim=$(pgrep -f "^$kedyn run $tmp/sweep256.yaml" | sort -n | tail -1)
[ -n "$victim" ] && kill -9 "$victim"
wait $launcher
code=$?
nbefore=$(ls "$tmp/s256" | grep -c '^sweep_v.*csv$')
check "a rank killed: the job ends non-zero ($code), $nbefore of 256 runs written" test $code -ne 0 -a "$nbefore" -lt 256
check "a rank killed: summary.json says incomplete" grep -q '"complete": false' "$tmp/s256/summary.json"
check "a rank killed: the journal is kept" test -s "$tmp/s256/.kedyn-cases/analysis1.journal"
(cd "$tmp" && $mpi -n 2 "$kedyn" run "$tmp/sweep256.yaml" -o "$tmp/s256" --quiet --resume >/dev/null 2>&1)
check "mpirun --resume exits 0" test $? -eq 0
check "mpirun --resume = an uninterrupted serial run, byte for byte" same_results -A "$tmp/s256.serial" "$tmp/s256"

# a rank killed mid-study under `mpirun --enable-recovery`: the others finish the sweep; the
# lost runs are failed runs in summary.json and named on stderr; no partial file under a final
# name; --resume computes the lost runs only: the files of an uninterrupted serial run
rm -rf "$tmp/rtmp" && mkdir -p "$tmp/rtmp"
(cd "$tmp" && $mpi --enable-recovery -n 3 "$kedyn" run "$tmp/sweep256.yaml" -o "$tmp/rec" --quiet >"$tmp/rec.out" 2>"$tmp/rec.err") &
launcher=$!
for _ in $(seq 1 600); do
  [ "$(ls "$tmp/rec" 2>/dev/null | grep -c '^sweep_v.*csv$')" -ge 20 ] && break
  sleep 0.05
done
victim=$(pgrep -f "^$kedyn run $tmp/sweep256.yaml -o $tmp/rec" | sort -n | tail -1)
[ -n "$victim" ] && kill -9 "$victim"
wait $launcher
nlost=$(grep -o '"message": "forces.1.value.sine.omega = [0-9.e+-]*: lost: MPI rank[^"]*"' "$tmp/rec/summary.json" | grep -vc 'runs failed')
nrec=$(ls "$tmp/rec" | grep -c '^sweep_v.*csv$')
check "recovery: a rank was killed (pid $victim)" test -n "$victim"
check "recovery: stderr names the rank and its lost cases" grep -q "ended without a word; [0-9]* cases\? it held" "$tmp/rec.err"
check "recovery: stderr gives the sweep's failure" grep -q "lost: MPI rank .* runs failed; the others are complete)" "$tmp/rec.err"
check "recovery: $nlost lost runs (1 to 3) in summary.json" test "$nlost" -ge 1 -a "$nlost" -le 3
check "recovery: every other run written ($nrec = 256 - $nlost)" test "$nrec" -eq $((256 - nlost))
check "recovery: summary.json lists all 256 runs" test "$(grep -c '"status": ' "$tmp/rec/summary.json")" -eq 257
check "recovery: no partial file under a final name" test -z "$(ls -A "$tmp/rec" | grep -v '^sweep_v[0-9]*_dynamics.csv$' | grep -v '^summary.json$' | grep -v '^.kedyn.lock$' | grep -v '^.kedyn-cases$')"
check "recovery: the journal is kept" test -s "$tmp/rec/.kedyn-cases/analysis1.journal"
(cd "$tmp" && $mpi -n 2 "$kedyn" run "$tmp/sweep256.yaml" -o "$tmp/rec" --quiet --resume >/dev/null 2>&1)
check "recovery: mpirun --resume exits 0" test $? -eq 0
check "recovery: --resume = an uninterrupted serial run, byte for byte" same_results -A "$tmp/s256.serial" "$tmp/rec"

# a rank that stops answering (SIGSTOP: its process is still there, as a rank on another machine
# that died or was cut off would seem): rank 0 declares it lost once it has been silent with cases
# in flight beyond the deadline (KEDYN_MPI_TIMEOUT, here 3 s), the other ranks finish the sweep, the
# lost runs are failed runs in summary.json, the job ends non-zero; --resume computes them
rm -rf "$tmp/rtmp" && mkdir -p "$tmp/rtmp"
(cd "$tmp" && $mpi -x KEDYN_MPI_TIMEOUT=3 -n 3 "$kedyn" run "$tmp/sweep256.yaml" -o "$tmp/hung" --quiet >/dev/null 2>"$tmp/hung.err") &
launcher=$!
for _ in $(seq 1 600); do
  [ "$(ls "$tmp/hung" 2>/dev/null | grep -c '^sweep_v.*csv$')" -ge 20 ] && break
  sleep 0.05
done
victim=$(pgrep -f "^$kedyn run $tmp/sweep256.yaml -o $tmp/hung" | sort -n | tail -1)
[ -n "$victim" ] && kill -STOP "$victim"
for _ in $(seq 1 900); do  # until every rank but the stopped one has ended
  [ -z "$(pgrep -f "^$kedyn run $tmp/sweep256.yaml -o $tmp/hung" | grep -vx "$victim")" ] && break
  sleep 0.2
done
[ -n "$victim" ] && kill -9 "$victim" 2>/dev/null
wait $launcher
code=$?
nlost=$(grep -o '"message": "forces.1.value.sine.omega = [0-9.e+-]*: lost: MPI rank [0-9]* (process [0-9]*) was silent[^"]*"' "$tmp/hung/summary.json" | grep -vc 'runs failed')
nhung=$(ls "$tmp/hung" | grep -c '^sweep_v.*csv$')
check "silent rank: a rank was stopped (pid $victim)" test -n "$victim"
check "silent rank: stderr names it and its lost cases" grep -q "was silent for [0-9]* s (the limit: 3 s); [0-9]* cases\? it held" "$tmp/hung.err"
check "silent rank: the job ends non-zero ($code)" test "$code" -ne 0
check "silent rank: $nlost lost runs (1 to 3) in summary.json" test "$nlost" -ge 1 -a "$nlost" -le 3
check "silent rank: every other run written ($nhung = 256 - $nlost)" test "$nhung" -eq $((256 - nlost))
check "silent rank: summary.json says incomplete" grep -q '"complete": false' "$tmp/hung/summary.json"
(cd "$tmp" && $mpi -n 2 "$kedyn" run "$tmp/sweep256.yaml" -o "$tmp/hung" --quiet --resume >/dev/null 2>&1)
check "silent rank: --resume = an uninterrupted serial run, byte for byte" same_results -A "$tmp/s256.serial" "$tmp/hung"

# rank 0 killed under --enable-recovery: the other ranks see it gone and stop (no job left hanging)
(cd "$tmp" && timeout 120 $mpi --enable-recovery -n 3 "$kedyn" run "$tmp/sweep256.yaml" -o "$tmp/r0" --quiet >/dev/null 2>"$tmp/r0.err") &
launcher=$!
for _ in $(seq 1 600); do
  [ "$(ls "$tmp/r0" 2>/dev/null | grep -c '^sweep_v.*csv$')" -ge 20 ] && break
  sleep 0.05
done
victim=$(pgrep -f "^$kedyn run $tmp/sweep256.yaml -o $tmp/r0" | sort -n | head -1)
[ -n "$victim" ] && kill -9 "$victim"
wait $launcher
code=$?
check "rank 0 killed: the job ends (not the 120 s timeout: $code)" test $code -ne 124
check "rank 0 killed: the others say why they stop" grep -q "rank 0 (process $victim) ended without a word; this rank stops" "$tmp/r0.err"
check "rank 0 killed: no rank left" test -z "$(pgrep -f "^$kedyn run $tmp/sweep256.yaml -o $tmp/r0")"
(cd "$tmp" && $mpi -n 2 "$kedyn" run "$tmp/sweep256.yaml" -o "$tmp/r0" --quiet --resume >/dev/null 2>&1)
check "rank 0 killed: --resume = an uninterrupted serial run" same_results -A "$tmp/s256.serial" "$tmp/r0"

finish mpi_test
