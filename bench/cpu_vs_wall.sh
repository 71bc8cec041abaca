#!/usr/bin/env bash
# CPU time against wall time of serial runs (docs/performance.md, "CPU time of a serial run").
# usage: bench/cpu_vs_wall.sh [BUILD_DIR] [REPEATS]
# Prints, per run: wall s, user+sys s and their ratio (1.0: one busy core; about 2 on two cores:
# a BLAS worker thread spinning next to the serial computation). The runs use the BLAS thread
# count the environment gives (unset: the command line's default, one thread; the benchmark
# programs use OpenBLAS's default unless OPENBLAS_NUM_THREADS is set).
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
measure() {  # label command...
    local label=$1
    shift
    for ((i = 0; i < repeats; i++)); do
        /usr/bin/time -f "%e %U %S" -o "$out/time" "$@" > /dev/null 2>&1
        awk -v l="$label" '{ cpu = $2 + $3; printf "%-32s wall %6.2f s  user+sys %6.2f s  ratio %.2f\n", l, $1, cpu, ($1 > 0 ? cpu / $1 : 0) }' "$out/time"
    done
}
echo "# OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS-unset} OMP_NUM_THREADS=${OMP_NUM_THREADS-unset}, $(nproc) cores"
measure "kedyn run wind_pump_elastic" "$build/kedyn" run examples/wind_pump_elastic.yaml -o "$out/run" --quiet
measure "bench_dynamics bar 25" "$build/bench/bench_dynamics" bar 25
