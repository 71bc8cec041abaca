#!/usr/bin/env bash
# The CPU a waiting MPI rank costs, and the scheduler's cost per case, in one run (docs/performance.md,
# "Ranks that wait without spinning"). For each MPI module (this build's kedyn_mpi.so and, given,
# BEFORE_SO: another build's), alternated over N rounds (ABAB):
#   idle   mpirun -n 2 kedyn run of a model with no study (the seed 001 bar, 25 elements, t_end
#          20 s: a few seconds on rank 0) -- rank 1 waits for rank 0 from start to end;
#   sweep  mpirun -n 2 kedyn run bench/parallel_sweep64.yaml --jobs 1 -- the 64-case sweep;
#   start  mpirun -n 2 kedyn run examples/cantilever.yaml -- a run of a few milliseconds: each
#          rank's CPU is its start (MPI_Init, kedyn's start and model read) and its end;
# each rank's wall and CPU time (user + sys, /usr/bin/time, 10 ms resolution). Printed per module:
# the medians over the rounds of each rank's CPU seconds and of the idle rank's CPU per second of
# its wall time; then bench_mpi_overhead with each module (cases that compute nothing: the
# protocol's cost per case, one case per message and batched).
# usage: bench/mpi_idle.sh [BUILD_DIR] [N] [BEFORE_SO]
set -euo pipefail
build=${1:-build}
n=${2:-5}
before=${3:-}
kedyn=$build/kedyn
mpi="mpirun --oversubscribe --allow-run-as-root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e 's/elements: 10,/elements: 25,/' -e 's/t_end: 0.1,/t_end: 20.0,/' examples/rotating_bar.yaml >"$tmp/idle.yaml"
cp bench/parallel_sweep64.yaml "$tmp/sweep.yaml"
cp examples/cantilever.yaml "$tmp/start.yaml"
mods="now=$(readlink -f "$build/kedyn_mpi.so")"
[ -n "$before" ] && mods="$mods before=$(readlink -f "$before")"
echo "# $(date -u +%FT%TZ), load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for round in $(seq 1 "$n"); do
  for m in $mods; do
    for model in idle sweep start; do
      rm -rf "$tmp/out" "$tmp/ranks"
      $mpi -x KEDYN_MPI_MODULE="${m#*=}" -n 2 /usr/bin/time -f "%e %U %S" -a -o "$tmp/ranks" \
        "$kedyn" run "$tmp/$model.yaml" -o "$tmp/out" --jobs 1 --quiet >/dev/null 2>&1
      # the two ranks' lines: the busier (rank 0) first
      sort -k2 -g -r "$tmp/ranks" | awk -v r="$round" -v m="${m%%=*}" -v s="$model" \
        '{printf "%s %s %s %d %s %.3f\n", r, m, s, NR - 1, $1, $2 + $3}' >>"$tmp/runs"
    done
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/runs" <<'PY'
import sys, statistics as st
t = {}
for r, m, s, k, wall, cpu in (l.split() for l in open(sys.argv[1])):
    t.setdefault((m, s, int(k)), []).append((float(wall), float(cpu)))
print("# module study rank  median wall_s  median cpu_s [min max]  median cpu/wall  (rank 1: the one that waits more)")
for (m, s, k), v in sorted(t.items()):
    c = [x[1] for x in v]
    print("%s %s %d  %.3f  %.3f [%.3f %.3f]  %.4f" % (m, s, k, st.median(x[0] for x in v), st.median(c), min(c), max(c),
                                                    st.median(x[1] / x[0] for x in v)))
PY
if [ -e "$build/bench/bench_mpi_overhead" ]; then
  for m in $mods; do
    for batch in 1 64; do
      echo "# ${m%%=*} KEDYN_MPI_BATCH=$batch"
      $mpi -x KEDYN_MPI_BATCH=$batch -n 2 "$build/bench/bench_mpi_overhead" "${m#*=}" 20000 24 3116 | grep -v '^#'
    done
  done
fi
