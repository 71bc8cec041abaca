#!/usr/bin/env bash
# The gyroscopic modes of a large model from the command line (docs/model-format.md, "modes" and
# "campbell"; theory.md sec. 14.5): examples/rotating_plate_membrane_fine.yaml (2 640 equations,
# above the dense state-space solver) runs `modes` at 14 000 rad/s and `campbell` from 0 to
# 14 000 rad/s through the sparse state-space solver. Asserted: exit 0, the state-space solver's
# keys, every speed stable; the Campbell row at speed 0 equals the symmetric modes at rest of the
# same plate without its motion (another solver: CHOLMOD shift-invert Lanczos) within 1e-9; the
# row at 14 000 rad/s equals the `modes` analysis at that speed.
#   gyro_sparse_cli_test.sh KEDYN EXAMPLES_DIR
set -uo pipefail
kedyn=$1
examples=$2
. "$(dirname "$0")/lib.sh"
model=$examples/rotating_plate_membrane_fine.yaml
"$kedyn" run "$model" -o "$tmp/spin" --quiet >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: run"; exit 1; }
# the same plate at rest: no motion, the modes analysis only
sed -e '/^motion:/,/^analyses:/{/^analyses:/!d}' -e '/type: campbell/d' "$model" >"$tmp/rest.yaml"
"$kedyn" run "$tmp/rest.yaml" -o "$tmp/rest" --quiet >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: run at rest"; exit 1; }
python3 - "$tmp/spin" "$tmp/rest" <<'PY' || exit 1
import csv, json, sys
spin = json.load(open(sys.argv[1] + "/summary.json"))
rest = json.load(open(sys.argv[2] + "/summary.json"))
modes, camp = spin["analyses"][0], spin["analyses"][1]
assert spin["dof"] == 2640, spin["dof"]
assert modes["solver"] == "state-space" and modes["count"] == 15 and "growth_rate_1_s" in modes, modes["solver"]
assert modes["unstable"] is False, modes["unstable"]
assert rest["analyses"][0]["solver"] != "state-space"
rows = list(csv.DictReader(open(sys.argv[1] + "/campbell.csv")))
assert [float(r["speed_rad_s"]) for r in rows] == [2000.0 * i for i in range(8)]
assert all(r["unstable"] == "0" for r in rows)
w0 = camp["omega_rad_s"][0]  # 12 digits (the CSV's 10)
wr = rest["analyses"][0]["omega_rad_s"]
e0 = max(abs(a - b) / b for a, b in zip(w0, wr))
wt = sorted(camp["omega_rad_s"][-1])
et = max(abs(a - b) / b for a, b in zip(wt, modes["omega_rad_s"]))
print("campbell at 0 vs the modes at rest %.2e, at 14 000 rad/s vs the modes analysis %.2e" % (e0, et))
assert e0 < 1e-9 and et < 1e-10, (e0, et)
PY
echo "gyro_sparse_cli_test: ok"
