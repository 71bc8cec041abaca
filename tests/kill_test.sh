#!/usr/bin/env bash
# SIGKILL at random moments (docs/cli.md, "Output files"): runs of a model with several analyses
# are killed N times after a random delay; after each, every file under its final name must be
# whole (every CSV parses with one field per header column, every JSON parses) and a summary.json
# present must not say "complete": true unless the run had finished with every file it lists.
# A re-run into the same OUTDIR each time: an old summary must never describe new files (a run
# killed before it reached OUTDIR leaves the previous run's complete results as they were).
# usage: kill_test.sh KEDYN EXAMPLES_DIR [N]
set -u
kedyn=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
examples=$(cd "$2" && pwd)
n=${3:-12}
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
# elastic links (inverse dynamics, modes along the motion, one-way dynamics) then an elastic bar
sed 's/t_end: 0.0838,/t_end: 0.25,/' "$examples/slider_crank_elastic.yaml" >links.yaml
sed 's/t_end: 0.1,/t_end: 0.4,/' "$examples/rotating_bar.yaml" >bar.yaml
fail=0
prev=none
for i in $(seq 1 "$n"); do
  model=links.yaml; [ $((i % 2)) -eq 0 ] && model=bar.yaml
  delay=$(python3 -c "import random; print(round(random.uniform(0.02, 0.9), 3))")
  "$kedyn" run "$model" -o out --quiet >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -KILL $pid 2>/dev/null
  wait $pid 2>/dev/null
  if ! python3 - out "$model" "$prev" <<'PY'; then
import csv, glob, json, os, sys
out, model, prev = sys.argv[1], sys.argv[2], sys.argv[3]
for path in glob.glob(out + "/*.csv"):
    text = open(path).read()
    assert text.endswith("\n"), path + ": cut short"
    rows = list(csv.reader(text.splitlines()))
    assert all(len(r) == len(rows[0]) for r in rows), path + ": a row cut short"
    numeric = [k for k, h in enumerate(rows[0]) if h not in ("body", "dof")]
    for r in rows[1:]:
        for k in numeric:
            float(r[k])
for path in glob.glob(out + "/*.json"):
    json.load(open(path))
s = os.path.join(out, "summary.json")
if os.path.exists(s):
    j = json.load(open(s))
    if j["complete"] and j["model"] != model:
        # killed before it reached OUTDIR (before the lock and the invalidated summary): the
        # previous run's complete results, untouched: no file under a final name is newer
        assert j["model"] == prev, "a complete summary of another model"
        t = os.path.getmtime(s)
        for f in os.listdir(out):
            if f != ".kedyn.lock" and ".tmp" not in f:
                assert os.path.getmtime(os.path.join(out, f)) <= t, f + " is newer than an old complete summary"
    if j["complete"]:
        for a in j["analyses"]:
            for f in a["files"]:
                assert os.path.exists(os.path.join(out, f)), f + " listed but missing"
PY
    echo "FAIL: run $i ($model, killed after $delay s)"; fail=$((fail + 1))
  fi
  prev=$model
done
echo "kill_test: $n kills, $fail failed"
test $fail -eq 0
