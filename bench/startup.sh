#!/usr/bin/env bash
# Start-up and the cost of a small run (docs/performance.md): whole processes timed by
# bench/startup.c (fork, exec, wait; best, median and mean of N runs, CPU time of the children):
#   kedyn --version
#   kedyn check bench/startup_bar.yaml
#   kedyn run bench/startup_bar.yaml -o TMP --quiet   (25 elements, 10 000 steps, dynamics.csv)
#     "run": into the same OUTDIR each time (each run replaces the previous run's files);
#     "run-new": into a new OUTDIR each time (nothing replaced)
# usage: bench/startup.sh [BUILD_DIR] [N] [OTHER_KEDYN...]
# Each OTHER_KEDYN (e.g. a build with -DKEDYN_STATIC_SOLVERS=OFF, or an older kedyn) is timed
# in the same rounds, alternating with BUILD_DIR/kedyn, so that the ratios share the machine's
# load. Also prints the machine's load and the shared objects each kedyn loads.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
n=${2:-200}
shift 2 || shift $#
timer=$build/bench/startup_timer
kedyns=("$build/kedyn" "$@")
model=bench/startup_bar.yaml
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for k in "${kedyns[@]}"; do
  echo "# $k: $(ldd "$k" | wc -l) shared objects (ldd), $(stat -c %s "$k") bytes"
done
runs=$(( n / 10 > 5 ? n / 10 : 5 ))
for round in 1 2; do
  for i in "${!kedyns[@]}"; do
    k=${kedyns[$i]}
    printf '%-40s %-8s ' "$k" version;  "$timer" "$n" "$k" --version
    printf '%-40s %-8s ' "$k" check;    "$timer" "$n" "$k" check "$model"
    printf '%-40s %-8s ' "$k" run;      "$timer" "$runs" "$k" run "$model" -o "$out/run$i" --quiet
    printf '%-40s %-8s ' "$k" run-new;  "$timer" "$runs" "$k" run "$model" -o "$out/new$round.$i.{}" --quiet
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
