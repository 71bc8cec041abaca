#!/usr/bin/env bash
# A dynamics history that cannot be written (the file size limit: write(2) fails with EFBIG once
# the file passes 200 kB; the signal SIGXFSZ ignored): the run stops, says which file and why,
# exits 1, and leaves neither dynamics.csv nor its temporary file (docs/cli.md, "Output files").
# usage: history_write_fail_test.sh KEDYN SOURCE_DIR
kedyn=$1
src=$2
. "$(dirname "$0")/lib.sh"
bar=$src/bench/startup_bar.yaml   # 10 000 rows, 1.2 MB

"$kedyn" run "$bar" -o "$tmp/whole" --quiet
check "without a limit: 10 000 rows and the header" test "$(wc -l < "$tmp/whole/dynamics.csv")" -eq 10002
(trap '' XFSZ; ulimit -f 200; exec "$kedyn" run "$bar" -o "$tmp/full" --quiet) 2>"$tmp/full.err"
code=$?
check "write failure exits 1" test $code -eq 1
check "write failure names the file and the cause" grep -q "cannot write '.*dynamics.csv': File too large" "$tmp/full.err"
check "write failure: no dynamics.csv" test ! -e "$tmp/full/dynamics.csv"
check "write failure: no temporary file left" test "$(find "$tmp/full" -name '*dynamics*' | wc -l)" -eq 0
finish history_write_fail_test
