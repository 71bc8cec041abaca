#!/usr/bin/env bash
# The dynamics history written beside the integration (src/output/row_writer.c): the same bytes
# with the writer's thread (--jobs 2) as without it (--jobs 1), rows kept up to a numerical
# failure, and a write that fails (the file size limit) reported with nothing under the final name.
# usage: history_writer_test.sh KEDYN SOURCE_DIR
kedyn=$1
src=$2
. "$(dirname "$0")/lib.sh"
bar=$src/bench/startup_bar.yaml   # 10 000 rows: 39 batches of 256 for the thread

"$kedyn" run "$bar" -o "$tmp/serial" --quiet --jobs 1
"$kedyn" run "$bar" -o "$tmp/thread" --quiet --jobs 2
check "10 000 rows: --jobs 2 = --jobs 1, byte for byte" cmp -s "$tmp/serial/dynamics.csv" "$tmp/thread/dynamics.csv"
check "10 000 rows and the header" test "$(wc -l < "$tmp/thread/dynamics.csv")" -eq 10002
# 80 000 rows: more than the ring holds (4 MB: 65 536 rows of 8 numbers), so the integration also
# waits for the thread
sed 's/t_end: 0.1,/t_end: 0.8,/' "$bar" > "$tmp/long.yaml"
"$kedyn" run "$tmp/long.yaml" -o "$tmp/long1" --quiet --jobs 1
"$kedyn" run "$tmp/long.yaml" -o "$tmp/long2" --quiet --jobs 2
check "80 000 rows: --jobs 2 = --jobs 1, byte for byte" cmp -s "$tmp/long1/dynamics.csv" "$tmp/long2/dynamics.csv"
check "80 000 rows and the header" test "$(wc -l < "$tmp/long2/dynamics.csv")" -eq 80002
if command -v strace >/dev/null; then   # the thread is started with --jobs 2 only
  strace -f -e trace=clone,clone3 -o "$tmp/clone.2" "$kedyn" run "$bar" -o "$tmp/s2" --quiet --jobs 2
  strace -f -e trace=clone,clone3 -o "$tmp/clone.1" "$kedyn" run "$bar" -o "$tmp/s1" --quiet --jobs 1
  check "--jobs 2 starts a thread" grep -q "clone" "$tmp/clone.2"
  check "--jobs 1 starts none" test "$(grep -c "clone" "$tmp/clone.1")" -eq 0
fi

# a divergence at t = 0.0715 s (cli_test.sh): the rows before it, whole, with either
"$kedyn" run "$src/tests/models/diverging.yaml" -o "$tmp/div1" --quiet --jobs 1 2>/dev/null; c1=$?
"$kedyn" run "$src/tests/models/diverging.yaml" -o "$tmp/div2" --quiet --jobs 2 2>/dev/null; c2=$?
check "divergence exits 3 with the thread" test "$c1" -eq 3 -a "$c2" -eq 3
check "divergence: the rows kept are the same" cmp -s "$tmp/div1/dynamics.csv" "$tmp/div2/dynamics.csv"
check "divergence: rows up to t = 0.07 s" grep -q "^0.07," "$tmp/div2/dynamics.csv"
check "divergence: the last row is whole" test "$(tail -c 1 "$tmp/div2/dynamics.csv" | od -An -c | tr -d ' ')" = '\n'

# a write that fails (EFBIG past a 200 kB file size limit; the signal ignored)
for jobs in 1 2; do
  (trap '' XFSZ; ulimit -f 200; exec "$kedyn" run "$bar" -o "$tmp/full$jobs" --quiet --jobs $jobs) 2>"$tmp/full$jobs.err"
  code=$?
  check "write failure exits 1 (--jobs $jobs)" test $code -eq 1
  check "write failure says so (--jobs $jobs)" grep -q "cannot write '.*dynamics.csv': File too large" "$tmp/full$jobs.err"
  check "write failure: no dynamics.csv (--jobs $jobs)" test ! -e "$tmp/full$jobs/dynamics.csv"
  check "write failure: no temporary file left (--jobs $jobs)" \
    test "$(find "$tmp/full$jobs" -name '*dynamics*' | wc -l)" -eq 0
done
finish history_writer_test
