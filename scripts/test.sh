#!/usr/bin/env bash
# The one command: install what is missing, configure, build, run every test.
# GPU tests skip themselves (reported as skipped) where there is no GPU.
#   scripts/test.sh [--sanitize]
#   --sanitize  a second configuration (build-sanitize): host code built with
#               AddressSanitizer and UBSan, the CPU tests run under them
#               (GPU tests are left to compute-sanitizer)
#   BUILD_DIR   build folder (default: build, or build-sanitize)
#   CMAKE_ARGS  extra arguments for the configure step
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    *) echo "test.sh: unknown argument '$arg' (--sanitize is the only option)" >&2; exit 2 ;;
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
fi
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${extra[@]}" ${CMAKE_ARGS:-}
cmake --build "$build_dir" -j"$jobs"
# Open MPI refuses root (CI containers) and too few cores unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# --no-tests=error: a configuration that registered no tests fails loudly.
cd "$build_dir"
ctest --output-on-failure --no-tests=error "${ctest_args[@]}"
