#!/usr/bin/env bash
# Speed-up of parallel studies (docs/performance.md, "Parallel studies"): the 64-case sweep of the
# seed 001 bar (bench/parallel_sweep64.yaml) and the 40 x 40 stability map of the rotating blade
# (bench/parallel_stability40.yaml), by 1 and 2 threads and by 1 and 2 MPI ranks, N rounds, the
# configurations alternated within each round (serial, parallel, serial, parallel, ...: ABAB) so
# that the machine's load falls on all alike (and, given BEFORE_BUILD_DIR, the same runs of another
# build in the same rounds: before and after in one run). Two times per run: the study's own (its
# `wall_s` in summary.json: from the study's start to its last result written) and the whole
# process (the command, mpirun included); and its CPU time (user + sys of the process and its
# children, /usr/bin/time). Printed: the best of N of each, their ratios, and the median over the
# rounds of each round's ratio with its interquartile range [q1 q3] and its extremes (the ratio of
# two runs next to each other in time), and the ratio of the CPU-time sums over the rounds
# (serial / parallel: 1 when the parallel run costs no CPU beyond the serial one); then the CPU
# seconds of each configuration and rank, the MPI scheduler's cost per case (bench_mpi_overhead)
# and the bytes a case sends.
# LONG=1: the same studies made 5-10 times longer, so that the run-to-run noise of a 0.1 s study
# weighs less: the sweep's runs over t_end = 1.0 s instead of 0.1 s (100 000 steps each), the
# map's blade of 50 elements instead of 10 (its points about 5 times dearer: banded matrices).
# usage: [LONG=1] bench/parallel.sh [BUILD_DIR] [N] [BEFORE_BUILD_DIR]
set -euo pipefail
build=${1:-build}
n=${2:-5}
before=${3:-}
kedyn=$build/kedyn
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
models=$tmp/models
mkdir -p "$models"
for model in sweep64 stability40; do
  if [ "${LONG:-0}" = 1 ]; then  # the long variant (see above)
    case $model in
      sweep64) sed -e 's/t_end: 0.1,/t_end: 1.0,/' "bench/parallel_$model.yaml" >"$models/$model.yaml" ;;
      stability40) sed -e 's/elements: 10,/elements: 50,/' "bench/parallel_$model.yaml" >"$models/$model.yaml" ;;
    esac
  else
    cp "bench/parallel_$model.yaml" "$models/$model.yaml"
  fi
done
mpi=""
if command -v mpirun >/dev/null 2>&1 && [ -e "$build/kedyn_mpi.so" ]; then
  mpi="mpirun --oversubscribe --allow-run-as-root"
fi
# study_s DIR: the wall time of the first analysis (the study alone, without the process start)
study_s() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['analyses'][0]['wall_s'])" "$1/summary.json"; }
now() { date +%s.%N; }
trees="now"
[ -n "$before" ] && trees="now before"
echo "# $(date -u +%FT%TZ), load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores, LONG=${LONG:-0}"
declare -A cpu_all
for round in $(seq 1 "$n"); do
  for model in sweep64 stability40; do
    for tree in $trees; do
      exe=$kedyn
      [ "$tree" = before ] && exe=$before/kedyn
      for cfg in t1 t2 m1 m2; do
        out=$tmp/$model.$tree.$cfg
        rm -rf "$out"
        case $cfg in
          t1|t2) cmd=("$exe" run "$models/$model.yaml" -o "$out" --jobs "${cfg#t}" --quiet) ;;
          m1|m2) [ -n "$mpi" ] || continue
                 cmd=($mpi -n "${cfg#m}" "$exe" run "$models/$model.yaml" -o "$out" --jobs 1 --quiet) ;;
        esac
        t0=$(now)
        /usr/bin/time -f "%U %S" -o "$tmp/cpu" "${cmd[@]}" >/dev/null 2>&1
        t1=$(now)
        echo "$round $model $tree $cfg $(study_s "$out") $(echo "$t1 - $t0" | bc -l)" \
          "$(awk '{print $1 + $2}' "$tmp/cpu")" >>"$tmp/runs"
      done
    done
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/runs" "$n" <<'PY2'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
t = {}
for r, model, tree, cfg, s, p, c in rows:
    t.setdefault((model, tree, cfg), {})[int(r)] = (float(s), float(p), float(c))
def quart(v):  # median, first and third quartiles (the median of each half)
    v = sorted(v); h = len(v) // 2
    lo, hi = (v[:h], v[h + len(v) % 2:]) if len(v) > 1 else (v, v)
    return st.median(v), st.median(lo), st.median(hi)
print("# study tree config best_study_s median_study_s best_process_s median_process_s cpu_sum_s  (N = %s rounds)" % sys.argv[2])
for (model, tree, cfg), v in sorted(t.items()):
    ss = [x[0] for x in v.values()]; ps = [x[1] for x in v.values()]
    print("%s %s %s %.4f %.4f %.4f %.4f %.3f" % (model, tree, cfg, min(ss), st.median(ss), min(ps), st.median(ps),
                                                sum(x[2] for x in v.values())))
print("# speed-up: study tree kind  best(study) best(process)  median of the rounds' ratios (study) [q1 q3] {min max}"
      "  (process) [q1 q3] {min max}  CPU sums serial/parallel")
for model in ("sweep64", "stability40"):
    for tree in ("now", "before"):
        for kind, a, b in (("2 threads", "t1", "t2"), ("2 ranks", "m1", "m2")):
            if (model, tree, a) not in t or (model, tree, b) not in t: continue
            x, y = t[(model, tree, a)], t[(model, tree, b)]
            rounds = sorted(set(x) & set(y))
            rs = [x[k][0] / y[k][0] for k in rounds]; rp = [x[k][1] / y[k][1] for k in rounds]
            bs = min(v[0] for v in x.values()) / min(v[0] for v in y.values())
            bp = min(v[1] for v in x.values()) / min(v[1] for v in y.values())
            cs = sum(x[k][2] for k in rounds) / max(1e-9, sum(y[k][2] for k in rounds))
            print("%s %s %s  %.2f %.2f  %.2f [%.2f %.2f] {%.2f %.2f}  %.2f [%.2f %.2f] {%.2f %.2f}  %.3f" % (
                  model, tree, kind.replace(" ", "_"), bs, bp, *quart(rs), min(rs), max(rs), *quart(rp), min(rp), max(rp), cs))
PY2
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
        t1|t2) /usr/bin/time -f "%U %S" -o "$tmp/ranks" "$kedyn" run "$models/$model.yaml" -o "$out" \
                 --jobs "${cfg#t}" --quiet >/dev/null 2>&1 ;;
        m2) [ -n "$mpi" ] || continue
            $mpi -n 2 /usr/bin/time -f "%U %S" -a -o "$tmp/ranks" "$kedyn" run "$models/$model.yaml" -o "$out" \
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
csv=$(du -cb "$tmp"/sweep64.now.t1/sweep_v*_dynamics.csv | tail -1 | cut -f1)
echo "# sweep64: mean CSV per run $((csv / 64)) B"
if [ -n "$mpi" ] && [ -e "$build/bench/bench_mpi_overhead" ] && [ "${LONG:-0}" != 1 ]; then  # (LONG: the same)
  for batch in 1 64; do  # one case per message (cases of more than 0.5 ms), and cheap cases batched
    echo "# KEDYN_MPI_BATCH=$batch"
    $mpi -x KEDYN_MPI_BATCH=$batch -n 2 "$build/bench/bench_mpi_overhead" "$build/kedyn_mpi.so" 20000 24 2900 $((csv / 64 + 2900))
    $mpi -x KEDYN_MPI_BATCH=$batch -n 3 "$build/bench/bench_mpi_overhead" "$build/kedyn_mpi.so" 20000 24 2900 $((csv / 64 + 2900))
  done
fi
