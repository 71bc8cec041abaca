#!/usr/bin/env bash
# The shared libraries kedyn loads at start-up (docs/performance.md, "Start-up and the cost of a
# small run"): with KEDYN_STATIC_SOLVERS the solvers (OpenBLAS and its LAPACK, gfortran, quadmath,
# SuiteSparse, SUNDIALS, ARPACK, libyaml, libgomp, libgcc_s) are linked in and only the C library,
# libm, libcjson and libmetis (no static archive in Debian) are loaded, ~9 ms less per process.
#   link_set_test.sh KEDYN MAX
# Fails when `ldd KEDYN` lists more than MAX lines or names one of the solver libraries.
set -euo pipefail
kedyn=$1 max=$2
list=$(ldd "$kedyn")
count=$(printf '%s\n' "$list" | wc -l)
status=0
if [ "$count" -gt "$max" ]; then
  echo "link_set_test: kedyn loads $count shared objects (ldd), more than $max:" >&2
  status=1
fi
for lib in openblas lapack blas gfortran quadmath sundials spqr cholmod klu arpack yaml gomp gcc_s; do
  if printf '%s\n' "$list" | grep -q "lib$lib"; then
    echo "link_set_test: kedyn loads lib$lib at start-up" >&2
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  printf '%s\n' "$list" >&2
else
  echo "link_set_test: $count shared objects (at most $max)"
fi
exit "$status"
