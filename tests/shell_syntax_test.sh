#!/usr/bin/env bash
# Every shell script of the project parses (bash -n): benchmarks and helper scripts are not run by
# the suite, so a syntax error there would otherwise go unnoticed.
set -u
root=${1:?usage: shell_syntax_test.sh SOURCE_DIR}
status=0
for f in "$root"/.ci/run "$root"/bench/*.sh "$root"/scripts/*.sh "$root"/tests/*.sh "$root"/tests/bad_models/*.sh; do
  [ -f "$f" ] || continue
  bash -n "$f" || { echo "shell_syntax_test: $f does not parse" >&2; status=1; }
done
exit $status
