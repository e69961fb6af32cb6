#!/usr/bin/env bash
# The one command: install what is missing, configure, build, run every test.
# GPU tests skip themselves (reported as skipped) where there is no GPU.
#   scripts/test.sh [--quick | --sanitize]
#   (default)   every test, the slow-labelled ones included (what CI and
#               scripts/device_run.sh run)
#   --quick     the everyday loop: every test but those labelled "slow"
#               (compile-only checks of the compatibility headers, the
#               install and pip-install tests; `ctest -L slow` runs them)
#   --sanitize  a second configuration (build-sanitize): host code built with
#               AddressSanitizer and UBSan, the CPU tests run under them
#               (GPU tests are left to compute-sanitizer)
#   BUILD_DIR   build folder (default: build, or build-sanitize)
#   CMAKE_ARGS  extra arguments for the configure step
# The build uses every core (Ninja where found: scripts/cmake_generator.sh);
# the tests run side by side, each GPU test on GPUs of its own
# (scripts/run_ctest.sh; CTEST_PARALLEL_LEVEL to change the jobs).
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=0
quick=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    --quick) quick=1 ;;
    *) echo "test.sh: unknown argument '$arg' (--quick or --sanitize)" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

build_dir=${BUILD_DIR:-build}
extra=()
ctest_args=()
if [[ $sanitize == 1 ]]; then
  build_dir=${BUILD_DIR:-build-sanitize}
  # Only what the CPU tests need: no GPU test binaries, no examples.
  extra=(-DGSHMEM_SANITIZE=address,undefined -DGSHMEM_BUILD_GPU_TESTS=OFF -DGSHMEM_BUILD_EXAMPLES=OFF)
  # CPU tests only; the install test builds a consumer without sanitizers.
  ctest_args=(-L cpu -LE install)
elif [[ $quick == 1 ]]; then
  ctest_args=(-LE slow)
fi
jobs=$(nproc 2>/dev/null || echo 2)
source scripts/cmake_generator.sh
start=$(date +%s)
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" $(gshmem_generator_args "$build_dir") -DCMAKE_BUILD_TYPE=RelWithDebInfo "${extra[@]}" ${CMAKE_ARGS:-}
configured=$(date +%s)
cmake --build "$build_dir" -j"$jobs"
built=$(date +%s)
rc=0
bash scripts/run_ctest.sh "$build_dir" "${ctest_args[@]}" || rc=$?
echo "test.sh: configure $(( configured - start )) s, build $(( built - configured )) s ($jobs jobs), tests $(( $(date +%s) - built )) s"
exit $rc
