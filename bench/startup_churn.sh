#!/usr/bin/env bash
# The bar run of bench/startup.sh into new OUTDIRs, before and after many files were deleted in the
# same directory tree (docs/performance.md, "Files created after many were deleted"). On ext4
# without a journal, creating a file skips the inodes deleted in the last 60 s (300 s while their
# inode table block is dirty), one buffer-cache lookup each, so every file a run creates (OUTDIR,
# .kedyn.lock, the temporary files of dynamics.csv and of the two summaries: 5) costs more after a
# test suite or a build has deleted thousands of files. Other file systems show no such step.
#   usage: bench/startup_churn.sh [BUILD_DIR] [N]
# Rows: "deleted 0" (whatever the last minutes deleted on this file system), then after 1 000
# and after 3 000 more files were created and deleted in the temporary directory; each row gives
# the time to create one empty file (200 created by the shell, then deleted) and the bar run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
n=${2:-30}
timer=$build/bench/startup_timer
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg); $out on $(stat -f -c %T "$out")"
churn() {  # create and delete $1 empty files
  mkdir "$out/churn"
  for ((i = 0; i < $1; i++)); do : >"$out/churn/f$i"; done
  rm -rf "$out/churn"
}
deleted=0
for more in 0 1000 2000; do
  churn "$more"
  deleted=$((deleted + more))
  mkdir "$out/probe$deleted"
  t0=$(date +%s%N)
  for ((i = 0; i < 200; i++)); do : >"$out/probe$deleted/f$i"; done
  t1=$(date +%s%N)
  rm -rf "$out/probe$deleted"
  printf 'deleted %-5d create %.3f ms  run-new  ' "$deleted" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 2e8 }')"
  "$timer" "$n" "$build/kedyn" run bench/startup_bar.yaml -o "$out/d$deleted.{}" --quiet
done
