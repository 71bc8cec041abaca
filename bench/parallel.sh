#!/usr/bin/env bash
# Speed-up of parallel studies (docs/performance.md, "Parallel studies"): the 64-case sweep of the
# seed 001 bar (bench/parallel_sweep64.yaml) and the 40 x 40 stability map of the rotating blade
# (bench/parallel_stability40.yaml), by 1 and 2 threads and by 1 and 2 MPI ranks; best of N runs,
# the configurations alternated within each round so that the machine's load falls on all alike;
# then the MPI scheduler's cost per case (bench_mpi_overhead) and the bytes a case sends.
# usage: bench/parallel.sh [BUILD_DIR] [N]
set -euo pipefail
build=${1:-build}
n=${2:-5}
kedyn=$build/kedyn
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpi=""
if command -v mpirun >/dev/null 2>&1 && [ -e "$build/kedyn_mpi.so" ]; then
  mpi="mpirun --oversubscribe --allow-run-as-root"
fi
# study_s DIR: the wall time of the first analysis (the study alone, without the process start)
study_s() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['analyses'][0]['wall_s'])" "$1/summary.json"; }
now() { date +%s.%N; }
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
declare -A best_study best_proc cpu_all
for round in $(seq 1 "$n"); do
  for model in sweep64 stability40; do
    for cfg in t1 t2 m1 m2; do
      out=$tmp/$model.$cfg
      rm -rf "$out"
      case $cfg in
        t1) cmd=("$kedyn" run "bench/parallel_$model.yaml" -o "$out" --jobs 1 --quiet) ;;
        t2) cmd=("$kedyn" run "bench/parallel_$model.yaml" -o "$out" --jobs 2 --quiet) ;;
        m1|m2) [ -n "$mpi" ] || continue
               cmd=($mpi -n "${cfg#m}" "$kedyn" run "bench/parallel_$model.yaml" -o "$out" --jobs 1 --quiet) ;;
      esac
      t0=$(now)
      "${cmd[@]}" >/dev/null 2>&1
      t1=$(now)
      p=$(echo "$t1 - $t0" | bc -l)
      s=$(study_s "$out")
      k=$model.$cfg
      if [ -z "${best_study[$k]:-}" ] || [ "$(echo "$s < ${best_study[$k]}" | bc -l)" = 1 ]; then best_study[$k]=$s; fi
      if [ -z "${best_proc[$k]:-}" ] || [ "$(echo "$p < ${best_proc[$k]}" | bc -l)" = 1 ]; then best_proc[$k]=$p; fi
    done
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# study cases config best_study_s best_process_s speedup_study speedup_process  (best of $n)"
for model in sweep64 stability40; do
  cases=$([ $model = sweep64 ] && echo 64 || echo 1600)
  for cfg in t1 t2 m1 m2; do
    k=$model.$cfg
    [ -n "${best_study[$k]:-}" ] || continue
    base=$model.${cfg%?}1
    printf "%s %d %s %.4f %.4f %.2f %.2f\n" "$model" "$cases" "$cfg" "${best_study[$k]}" "${best_proc[$k]}" \
      "$(echo "${best_study[$base]} / ${best_study[$k]}" | bc -l)" "$(echo "${best_proc[$base]} / ${best_proc[$k]}" | bc -l)"
  done
done
# On a machine shared with other work the wall-clock ratios above measure the share the scheduler
# gives this process group more than the program (with autogroup scheduling, the threads of one
# process share one group's share: 2 threads then run no faster than 1 at a load above the cores).
# So also: CPU seconds (user + sys) of each configuration, and of each rank, best of N; the
# speed-up the cases allow on idle cores is CPU(1) / max over ranks of CPU(rank), and for threads
# CPU(1) / (CPU(2 threads) / 2 + one case's CPU), the last case's wait bounding the imbalance of a
# dynamic schedule.
echo "# study config best_cpu_s [per-rank cpu_s...]  (user + sys, best of $n)"
for model in sweep64 stability40; do
  cases=$([ $model = sweep64 ] && echo 64 || echo 1600)
  declare -A cpu=()
  for round in $(seq 1 "$n"); do
    for cfg in t1 t2 m2; do
      out=$tmp/cpu.$model.$cfg
      rm -rf "$out" "$tmp/ranks"
      case $cfg in
        t1|t2) /usr/bin/time -f "%U %S" -o "$tmp/ranks" "$kedyn" run "bench/parallel_$model.yaml" -o "$out" \
                 --jobs "${cfg#t}" --quiet >/dev/null 2>&1 ;;
        m2) [ -n "$mpi" ] || continue
            $mpi -n 2 /usr/bin/time -f "%U %S" -a -o "$tmp/ranks" "$kedyn" run "bench/parallel_$model.yaml" -o "$out" \
              --jobs 1 --quiet >/dev/null 2>&1 ;;
      esac
      c=$(awk '{s = $1 + $2; if (s > m) m = s} END {print m}' "$tmp/ranks")  # the busiest rank
      if [ -z "${cpu[$cfg]:-}" ] || [ "$(echo "$c < ${cpu[$cfg]}" | bc -l)" = 1 ]; then
        cpu[$cfg]=$c
        cpu_all[$model.$cfg]=$(awk '{printf "%.3f ", $1 + $2}' "$tmp/ranks")
      fi
    done
  done
  for cfg in t1 t2 m2; do
    [ -n "${cpu[$cfg]:-}" ] && echo "$model $cfg ${cpu[$cfg]} [${cpu_all[$model.$cfg]}]"
  done
  printf "%s: speed-up on idle cores (from CPU): threads %.2f, 2 ranks %.2f\n" "$model" \
    "$(echo "${cpu[t1]} / (${cpu[t2]} / 2 + ${cpu[t1]} / $cases)" | bc -l)" \
    "$(echo "${cpu[t1]} / ${cpu[m2]:-${cpu[t1]}}" | bc -l)"
done
# bytes per case: a stability point 8 B of result + 8 B of status + 8 B of header; a sweep run its
# report (sizeof(kd_analysis_report), printed by bench_mpi_overhead) + 24 B + its CSV when remote
csv=$(du -cb "$tmp"/sweep64.t1/sweep_v*_dynamics.csv | tail -1 | cut -f1)
echo "# sweep64: mean CSV per run $((csv / 64)) B"
if [ -n "$mpi" ] && [ -e "$build/bench/bench_mpi_overhead" ]; then
  $mpi -n 2 "$build/bench/bench_mpi_overhead" "$build/kedyn_mpi.so" 20000 24 2900 $((csv / 64 + 2900))
  $mpi -n 3 "$build/bench/bench_mpi_overhead" "$build/kedyn_mpi.so" 20000 24 2900 $((csv / 64 + 2900))
fi
