# Sourced by the command-line tests (tests/*_test.sh, `. "$(dirname "$0")/lib.sh"`), the set-up they
# share:
#   - $tmp, a temporary directory removed at exit;
#   - check NAME COMMAND...: runs COMMAND, counts it in $pass or $fail, prints "FAIL: NAME" on
#     failure; finish [LABEL]: prints "LABEL: P passed, F failed" and returns 0 only when nothing
#     failed (the test's last command, its exit status);
#   - same_results [-A] DIR_A DIR_B: the same file names (-A: hidden ones too), every CSV, VTU and
#     PVD file byte for byte, summary.json but for its wall times (parallel and MPI runs against
#     the serial run);
#   - headless Chromium (Debian package `chromium`): $browser, empty when it is not installed;
#     chrome PROFILE_DIR ARGS...: the browser headless, offline, as root, at most 90 s;
#     state DOM NAME: the data-NAME attribute of the report's #kd-state element in a dumped DOM.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
finish() {  # finish [LABEL]
  echo "${1:+$1: }$pass passed, $fail failed"
  test "$fail" -eq 0
}
same_results() {  # same_results [-A] DIR_A DIR_B
  local all= a b f
  [ "$1" = -A ] && { all=-A; shift; }
  a=$1 b=$2
  [ -s "$a/summary.json" ] && [ -s "$b/summary.json" ] || return 1
  [ "$(ls $all "$a")" = "$(ls $all "$b")" ] || { echo "file lists differ: $a $b"; diff <(ls $all "$a") <(ls $all "$b") | head -5; return 1; }
  for f in "$a"/*.csv "$a"/*.vtu "$a"/*.pvd; do
    [ -e "$f" ] || continue
    cmp -s "$f" "$b/$(basename "$f")" || { echo "differs: $f"; return 1; }
  done
  diff -q <(sed 's/"wall_s": [0-9.e+-]*//' "$a/summary.json") <(sed 's/"wall_s": [0-9.e+-]*//' "$b/summary.json") >/dev/null
}

browser=$(command -v chromium || command -v chromium-browser || true)
chrome() {  # chrome PROFILE_DIR ARGS...
  local profile=$1; shift
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" "$@"
}
state() { grep -o '<div id="kd-state"[^>]*>' "$1" | grep -o "data-$2=\"[^\"]*\"" | cut -d'"' -f2; }
