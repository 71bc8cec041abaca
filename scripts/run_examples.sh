#!/bin/bash
# scripts/run_examples.sh KEDYN OUTROOT: run every examples/*.yaml (from the repository root)
# with the given kedyn binary into OUTROOT/NAME (one line per example: name, exit code, seconds).
K=$(readlink -f "$1"); OUT=$(readlink -m "$2"); mkdir -p "$OUT"
for f in examples/*.yaml; do n=$(basename "$f" .yaml)
  s=$(date +%s.%N); "$K" run "$f" -o "$OUT/$n" > "$OUT/$n.log" 2>&1; rc=$?
  echo "$n rc=$rc $(echo "$(date +%s.%N) - $s" | bc)"; done
