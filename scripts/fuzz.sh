#!/usr/bin/env bash
# Run kedyn's fuzz targets (fuzz/fuzz_*.c) with libFuzzer under ASan+UBSan (docs/testing.md).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# Builds build-fuzz/ with clang (-DKEDYN_FUZZ=ON), then runs each target (default: every
# fuzz/fuzz_*.c) for SECONDS (default 60) on one core. Seeds: fuzz/corpus/NAME/ and the files and
# folders listed in fuzz/corpus/NAME.seeds; the model target uses the dictionary fuzz/kedyn.dict.
# New interesting inputs go to build-fuzz/corpus/NAME/ (kept between runs), findings (crash-*,
# leak-*, timeout-*, oom-*) to build-fuzz/findings/NAME/, the log to build-fuzz/logs/NAME.log.
# Exits 1 when a target found something: copy the input into tests/fuzz_regressions/NAME/, fix
# the cause, and check with `build/fuzz/fuzz_NAME_replay tests/fuzz_regressions/NAME`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
dir=build-fuzz
jobs=$(nproc 2>/dev/null || echo 2)
CC=${CC:-clang} cmake -S . -B "$dir" -DKEDYN_WERROR=ON -DKEDYN_FUZZ=ON -DKEDYN_TESTS=OFF -DKEDYN_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" >/dev/null
cmake --build "$dir" -j "$jobs" >/dev/null

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    [ "$name" = fuzz_common ] || targets+=("${name#fuzz_}")
  done
fi

export OPENBLAS_NUM_THREADS=1 TMPDIR=$PWD/$dir/tmp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$TMPDIR" "$dir/logs"
failed=0
for name in "${targets[@]}"; do
  corpus=$dir/corpus/$name findings=$dir/findings/$name
  mkdir -p "$corpus" "$findings"
  seeds=()  # libFuzzer reads folders: seed files are copied into the corpus
  [ -d fuzz/corpus/"$name" ] && seeds+=(fuzz/corpus/"$name")
  if [ -f fuzz/corpus/"$name".seeds ]; then
    while read -r s; do
      if [ -d "$s" ]; then seeds+=("$s"); elif [ -f "$s" ]; then cp "$s" "$corpus/"; fi
    done < fuzz/corpus/"$name".seeds
  fi
  dict=()
  [ "$name" = model ] && dict=(-dict=fuzz/kedyn.dict)
  log=$dir/logs/$name.log
  if "$dir/fuzz/fuzz_$name" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$findings/" -print_final_stats=1 "$corpus" "${seeds[@]}" >"$log" 2>&1; then
    echo "fuzz $name: ${seconds} s, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs, no findings"
  else
    echo "fuzz $name: FOUND a problem (log: $log, input: $(ls "$findings" | head -1))" >&2
    grep -m 5 -E "ERROR|runtime error|SUMMARY" "$log" >&2 || true
    failed=1
  fi
done
exit $failed
