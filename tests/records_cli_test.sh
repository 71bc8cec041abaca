#!/usr/bin/env bash
# Measured records from the command line (docs/cli.md "kedyn analyze", docs/model-format.md
# "Records"): the hammer example's files, columns and summary keys; `kedyn analyze` on the
# Universal File it wrote and on a CSV record; bad records exit 1 writing nothing, bad options 2.
#   records_cli_test.sh KEDYN EXAMPLES_DIR
set -uo pipefail
kedyn=$1
examples=$2
. "$(dirname "$0")/lib.sh"
has_header() {  # FILE PREFIX: the first line begins with PREFIX
  head -1 "$1" | grep -q "^$2"
}

out=$tmp/hammer
"$kedyn" run "$examples/pump_rod_hammer.yaml" -o "$out" --quiet >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: run"; exit 1; }
for f in modes.csv virtual_test.csv virtual_test.uff spectrum.csv frf.csv identify.csv stabilisation.csv correlate.csv mac.csv; do
  check "$f written" test -s "$out/$f"
done
check "virtual_test.csv header" has_header "$out/virtual_test.csv" "t,force \[N\],a1 \[m/s^2\]"
check "spectrum.csv header" has_header "$out/spectrum.csv" "f_hz,force.psd,force.amplitude,a4.psd,a4.amplitude"
check "frf.csv header" has_header "$out/frf.csv" "f_hz,a1.re,a1.im,a1.mag_db,a1.phase_deg,a1.coherence,a2.re"
check "identify.csv header" has_header "$out/identify.csv" "mode,frequency_hz,damping_ratio,a1.shape"
for key in '"frequency_hz"' '"damping_ratio"' '"pairs"' '"peak_hz"' '"record": "hammer"' '"complete": true'; do
  check "summary key $key" grep -q "$key" "$out/summary.json"
done
check "UFF dataset 58" grep -q "^    58" "$out/virtual_test.uff"

an=$tmp/an
"$kedyn" analyze "$out/virtual_test.uff" -o "$an" --columns a4 --segment 5000 --frf force \
  --responses a1,a2,a3,a4,a5,a6 --hits 5 --identify --band 20,1200 >"$tmp/an.out" 2>&1 || { cat "$tmp/an.out"; fail=1; }
check "analyze: spectrum.csv" has_header "$an/spectrum.csv" "f_hz,a4.psd,a4.amplitude"
check "analyze: frf.csv" has_header "$an/frf.csv" "f_hz,a1.re"
check "analyze: four modes" grep -q "identify: 4 modes" "$tmp/an.out"
check "analyze: summary" grep -q '"record":' "$an/summary.json"

printf 't,a [m/s^2]\n0,1\n0.001,2\n0.002\n' >"$tmp/ragged.csv"
"$kedyn" analyze "$tmp/ragged.csv" --time t -o "$tmp/no" >/dev/null 2>"$tmp/err"
rc=$?
check "ragged record: exit 1 (got $rc)" test "$rc" -eq 1
check "ragged record: located" grep -q "ragged.csv:4:1: error: ragged row" "$tmp/err"
check "ragged record: nothing written" test ! -e "$tmp/no"
# the time column named twice: the second is an error (it was read as a data column more than the
# record had, a write past its channels: tests/fuzz_regressions/uff/time_column_twice.csv)
printf 't,x,t,z\n0,0,0,0\n1,0,1,0\n' >"$tmp/twice.csv"
"$kedyn" analyze "$tmp/twice.csv" --time t -o "$tmp/no2" >/dev/null 2>"$tmp/err"
rc=$?
check "time column twice: exit 1 (got $rc)" test "$rc" -eq 1
check "time column twice: located" grep -q "twice.csv:1:5: error: column 't' is given twice" "$tmp/err"
check "time column twice: nothing written" test ! -e "$tmp/no2"
"$kedyn" analyze "$tmp/ragged.csv" --bogus >/dev/null 2>&1
rc=$?
check "unknown option: exit 2 (got $rc)" test "$rc" -eq 2
finish records_cli_test
