#!/usr/bin/env bash
# Set up kedyn on a Debian machine (as root), build it and run one job:
#   scripts/setup.sh demo    install what is missing, build, run `kedyn demo`
#   scripts/setup.sh test    install what is missing, build, run the whole test
#                            suite (release build with warnings as errors, then
#                            an ASan+UBSan build), then a subset of the examples
#                            under valgrind (scripts/valgrind_examples.sh --quick)
#                            and every fuzz target for KEDYN_FUZZ_SECONDS seconds
#                            (default 15; 0: none)
#   scripts/setup.sh fuzz [SECONDS]
#                            install, run every fuzz target for SECONDS
#                            (default 600) with libFuzzer (scripts/fuzz.sh)
#   scripts/setup.sh bench   install, build, run the benchmarks (bench/run.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-demo}
packages=(cmake make gcc pkg-config libc6-dev liblapacke-dev libopenblas-dev libyaml-dev libcmocka-dev
          libarpack2-dev libsundials-dev libsuitesparse-dev
          libcjson-dev libfftw3-dev gnuplot-nox fonts-dejavu-core libpng-dev chromium python3 valgrind
          libopenmpi-dev openmpi-bin)
# the static archives kedyn links its solvers with (CMakeLists.txt, KEDYN_STATIC_SOLVERS):
# libgfortran.a (gfortran's libgfortran-N-dev) and OpenBLAS's (libopenblas-pthread-dev)
packages+=(gfortran libopenblas-pthread-dev)
# libFuzzer and its sanitizer runtimes (clang's): only for the fuzz run of `test` and `fuzz`
case "$mode" in
  test|fuzz) packages+=(clang libclang-rt-dev) ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
build() {  # build DIR [cmake options...]
  local dir=$1; shift
  cmake -S . -B "$dir" -DKEDYN_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" >/dev/null
}

case "$mode" in
  demo)
    build build -DCMAKE_BUILD_TYPE=Release
    ./build/kedyn demo
    ;;
  test)
    build build -DCMAKE_BUILD_TYPE=Release -DKEDYN_MPI=ON  # kedyn_mpi.so: mpi_test
    ctest --test-dir build --output-on-failure -j "$jobs"
    # -O1, as the sanitizers' documentation advises (no NDEBUG: the same checks as Debug, faster
    # than -O0; gcc's format-truncation warnings then see the tests' buffers too)
    build build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DKEDYN_SANITIZE=ON -DKEDYN_BENCH=OFF
    ctest --test-dir build-asan --output-on-failure -j "$jobs"
    # memcheck on the release binary (every example: scripts/valgrind_examples.sh build/kedyn DIR)
    vg_out=$(mktemp -d)
    bash scripts/valgrind_examples.sh build/kedyn "$vg_out" --quick
    rm -rf "$vg_out"
    if [ "${KEDYN_FUZZ_SECONDS:-15}" != 0 ]; then
      bash scripts/fuzz.sh "${KEDYN_FUZZ_SECONDS:-15}"
    fi
    ;;
  fuzz)
    bash scripts/fuzz.sh "${2:-600}"
    ;;
  bench)
    build build -DCMAKE_BUILD_TYPE=Release -DKEDYN_MPI=ON
    bash bench/run.sh build
    ;;
  *)
    echo "usage: scripts/setup.sh demo|test|fuzz [SECONDS]|bench" >&2
    exit 2
    ;;
esac
