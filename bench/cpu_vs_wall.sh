#!/usr/bin/env bash
# CPU time against wall time of serial runs (docs/performance.md, "CPU time of a serial run").
# usage: bench/cpu_vs_wall.sh [BUILD_DIR] [REPEATS]
# Prints, per run: wall s, user+sys s and their ratio (1.0: one busy core; about 2 on two cores:
# a BLAS worker thread spinning next to the serial computation). The runs are `kedyn run` with the
# BLAS thread count the environment gives (unset: the command line's default, one thread):
#   wind_pump_elastic   examples/wind_pump_elastic.yaml (one-way elastic links)
#   bar25_dynamics      examples/rotating_bar.yaml with 25 elements over 3 s (300 000
#                       generalized-alpha steps of 25 equations)
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
        awk -v l="$label" '{ cpu = $2 + $3; printf "%-18s wall %6.2f s  user+sys %6.2f s  ratio %.2f\n", l, $1, cpu, ($1 > 0 ? cpu / $1 : 0) }' "$out/time"
    done
}
echo "# OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS-unset} OMP_NUM_THREADS=${OMP_NUM_THREADS-unset}, $(nproc) cores"
sed -e 's/elements: 10,/elements: 25,/' -e 's/t_end: 0.1,/t_end: 3.0,/' examples/rotating_bar.yaml > "$out/bar25.yaml"
measure "wind_pump_elastic" "$build/kedyn" run examples/wind_pump_elastic.yaml -o "$out/run" --quiet
measure "bar25_dynamics" "$build/kedyn" run "$out/bar25.yaml" -o "$out/run" --quiet
