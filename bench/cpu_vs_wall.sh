#!/usr/bin/env bash
# CPU time against wall time of serial runs (docs/performance.md, "CPU time of a serial run").
# usage: bench/cpu_vs_wall.sh [BUILD_DIR] [REPEATS]
# Prints, per case, the sums over REPEATS processes (default 5) of the wall time and of the CPU
# time (user + sys, all threads, /usr/bin/time) and their ratio: 1.0 is one busy core; more is
# another thread busy next to the serial computation (e.g. a BLAS worker spinning), less is a
# machine busy with other work. "other threads" is the CPU time of every thread but the main one
# (BUILD_DIR/bench/libthread_cpu.so preloaded; it reads /proc at exit): what a spinning BLAS pool
# costs, whatever the load. The programs choose their BLAS thread count themselves (one
# thread unless OPENBLAS_NUM_THREADS/OMP_NUM_THREADS is set, docs/cli.md "Environment"):
#   bench_bar25        build/bench/bench_dynamics bar 25: the seed 001 bar with 25 elements,
#                      10 000 generalized-alpha steps, best of 5 (docs/performance.md)
#   wind_pump_elastic  kedyn run examples/wind_pump_elastic.yaml (one-way elastic links)
#   bar25_dynamics     kedyn run examples/rotating_bar.yaml with 25 elements over 3 s
#                      (300 000 generalized-alpha steps of 25 equations)
set -euo pipefail
build=${1:-build}
repeats=${2:-5}
preload=$(readlink -f "$build/bench/libthread_cpu.so")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
measure() {  # label command...
    local label=$1
    shift
    : > "$out/times"
    : > "$out/threads"
    for ((i = 0; i < repeats; i++)); do
        /usr/bin/time -f "%e %U %S" -o "$out/time" env THREAD_CPU_OUT="$out/threads" LD_PRELOAD="$preload" "$@" \
            > /dev/null 2>&1
        cat "$out/time" >> "$out/times"
    done
    local other
    other=$(awk '{ o += $2 } END { printf "%.2f", o }' "$out/threads")
    awk -v l="$label" -v n="$repeats" -v o="$other" '{ w += $1; c += $2 + $3 }
        END { printf "%-18s %d runs  wall %7.2f s  user+sys %7.2f s  ratio %.2f  other threads %s s\n",
                     l, n, w, c, (w > 0 ? c / w : 0), o }' "$out/times"
}
echo "# OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS-unset} OMP_NUM_THREADS=${OMP_NUM_THREADS-unset}," \
     "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
sed -e 's/elements: 10,/elements: 25,/' -e 's/t_end: 0.1,/t_end: 3.0,/' examples/rotating_bar.yaml > "$out/bar25.yaml"
measure "bench_bar25" "$build/bench/bench_dynamics" bar 25
measure "wind_pump_elastic" "$build/kedyn" run examples/wind_pump_elastic.yaml -o "$out/run" --quiet
measure "bar25_dynamics" "$build/kedyn" run "$out/bar25.yaml" -o "$out/run" --quiet
