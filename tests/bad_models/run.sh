#!/usr/bin/env bash
# The corpus of bad models (tests/bad_models/*.yaml, written by generate.py): each file's first
# line is `# expect: [FILE:]LINE:COL: error: PREFIX`. For every file, `kedyn check` and `kedyn run`
# must exit 1 within 10 s (100 000 nested `[` once took 12 s), print `MODEL:LINE:COL: error:
# PREFIX...` (or FILE:..., a data file relative to this folder) as the first line on stderr, and
# `run` must write nothing. The cases run on every core (xargs -P).
#   run.sh KEDYN [CASE.yaml...]
set -uo pipefail
kedyn=$(realpath "$1")
shift
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # through the EXIT trap

# One case: prints what went wrong, exits 1 then.
one_case() {
  local f=$1 fail=0 exp rc first out
  exp=$(head -1 "$f" | sed $'s/^\xef\xbb\xbf//; s/^# expect: //')
  case "$exp" in
    [0-9]*) exp="$f:$exp" ;;       # a location in the model file
  esac
  for cmd in check run; do
    out=$tmp/out_${f%.yaml}
    local args=("$cmd" "$f")
    [ "$cmd" = run ] && args+=(-o "$out" --quiet)
    timeout 10 "$kedyn" "${args[@]}" >"$tmp/${f}.stdout" 2>"$tmp/${f}.stderr"
    rc=$?
    first=$(head -1 "$tmp/${f}.stderr")
    if [ "$rc" -ne 1 ]; then
      echo "FAIL $f ($cmd): exit $rc, expected 1${first:+ ($first)}"
      fail=1
    elif [ "${first#"$exp"}" = "$first" ]; then
      printf 'FAIL %s (%s):\n  expected: %s\n  got:      %s\n' "$f" "$cmd" "$exp" "$first"
      fail=1
    fi
    if [ "$cmd" = run ] && [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
      echo "FAIL $f (run): wrote $(ls "$out" | head -3 | tr '\n' ' ')"
      fail=1
    fi
  done
  return $fail
}
export -f one_case
export kedyn tmp

if [ $# -gt 0 ]; then cases=("$@"); else cases=(*.yaml); fi
printf '%s\0' "${cases[@]}" | xargs -0 -n 1 -P "$(nproc 2>/dev/null || echo 2)" bash -c 'one_case "$0"'
status=$?
echo "bad models: ${#cases[@]} cases, $([ $status = 0 ] && echo "all as expected" || echo "FAILURES above")"
[ $status = 0 ]
