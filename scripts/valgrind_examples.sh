#!/bin/bash
# Run examples under valgrind's memcheck: no invalid read or write, no use of an uninitialised
# value, no definite leak (--leak-check=full --errors-for-leak-kinds=definite; any error makes
# valgrind exit 99).
#
#   scripts/valgrind_examples.sh KEDYN OUTROOT              every examples/*.yaml (~1 h on 2 cores)
#   scripts/valgrind_examples.sh KEDYN OUTROOT --quick      the subset CI runs (a few minutes)
#   scripts/valgrind_examples.sh KEDYN OUTROOT NAME...      the named examples (examples/NAME.yaml)
#
# From the repository root. KEDYN: a kedyn binary without sanitizers (valgrind and ASan do not
# mix); a build with -g (CMAKE_BUILD_TYPE=RelWithDebInfo or Debug) gives file:line in the
# reports. Each example's valgrind report is OUTROOT/NAME.valgrind, its output OUTROOT/NAME/.
# The exit code of kedyn must be the expected one (0; 3 for the two examples that stop at a
# singular position on purpose). Prints one line per example; exits 1 if any failed, 77 when
# valgrind is not installed.
set -u
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind_examples: valgrind not installed (apt-get install valgrind)" >&2
  exit 77
fi
if [ $# -lt 2 ]; then
  echo "usage: scripts/valgrind_examples.sh KEDYN OUTROOT [--quick | NAME...]" >&2
  exit 2
fi
K=$(readlink -f "$1")
OUT=$(readlink -m "$2")
shift 2
# The CI subset: one example per kind of run that is fast under valgrind (modes, Campbell and
# stability of a rotating blade, moving-frame dynamics, a rigid mechanism's kinematics and inverse
# dynamics, forward dynamics, one-way and two-way elastic links, a tabulated 3D pose, a locking
# mechanism that exits 3).
QUICK=(cantilever rotating_blade rotating_bar_damped slider_crank pendulum_swing four_bar_locking
       slider_crank_elastic slider_crank_flexible spin_up_pose_table)
if [ $# -eq 0 ]; then
  names=()
  for f in examples/*.yaml; do names+=("$(basename "$f" .yaml)"); done
elif [ "$1" = "--quick" ]; then
  names=("${QUICK[@]}")
else
  names=("$@")
fi
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT"
bad=0
for n in "${names[@]}"; do
  f=examples/$n.yaml
  [ -e "$f" ] || { echo "$n: no such example ($f)"; bad=1; continue; }
  expect=0
  case "$n" in four_bar_locking | isosceles_slider_crank) expect=3 ;; esac
  rm -rf "${OUT:?}/$n"
  s=$(date +%s)
  valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
    --track-origins=yes --log-file="$OUT/$n.valgrind" "$K" run "$f" -o "$OUT/$n" --quiet >"$OUT/$n.log" 2>&1
  rc=$?
  t=$(($(date +%s) - s))
  summary=$(grep -E "ERROR SUMMARY|definitely lost" "$OUT/$n.valgrind" | sed 's/^==[0-9]*== *//' | tr '\n' ';')
  if [ $rc -eq "$expect" ]; then
    echo "ok    $n (exit $rc, ${t} s) $summary"
  else
    echo "FAIL  $n (exit $rc, expected $expect, ${t} s) $summary; see $OUT/$n.valgrind"
    bad=1
  fi
done
exit $bad
