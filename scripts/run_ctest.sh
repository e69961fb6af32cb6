#!/usr/bin/env bash
# Runs a build's tests side by side, each GPU test on GPUs of its own:
#
#   scripts/run_ctest.sh BUILD_DIR [CTEST_ARGS...]
#
# Counts this machine's GPUs (nvidia-smi -L; where CUDA_VISIBLE_DEVICES is
# set, the GPUs it names), writes a CTest resource spec with one "gpus"
# resource of one slot per GPU (BUILD_DIR/ctest-gpus.json) and runs
#   ctest --output-on-failure --no-tests=error -j JOBS --resource-spec-file SPEC CTEST_ARGS...
# in BUILD_DIR. Each GPU test asks for the GPUs it needs (tests/resources:
# capped at this count through GSHMEM_CTEST_GPUS, so one that needs more
# still runs and reports itself skipped) and runs on them alone
# (tests/support/gpu_slots.sh sets CUDA_VISIBLE_DEVICES); CPU tests run
# beside them. JOBS: CTEST_PARALLEL_LEVEL, else the number of cores; an
# mpirun test of N PEs counts as N (PROCESSORS), so on 2 cores a 2-PE job
# runs alone. GSHMEM_CTEST_GPUS set by the caller overrides the count
# (0: no GPU test gets a GPU; they report themselves skipped).
set -euo pipefail
if [[ $# -lt 1 || ! -d "$1" ]]; then
  echo "usage: $0 BUILD_DIR [CTEST_ARGS...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
shift
if [[ -z "${GSHMEM_CTEST_GPUS:-}" ]]; then
  gpus=$( (nvidia-smi -L 2>/dev/null || true) | grep -c '^GPU ' || true)
  if [[ -n "${CUDA_VISIBLE_DEVICES+set}" ]]; then
    # The spec's GPU k is the k-th of CUDA_VISIBLE_DEVICES (gpu_slots.sh).
    IFS=, read -r -a listed <<< "$CUDA_VISIBLE_DEVICES"
    (( ${#listed[@]} < gpus )) && gpus=${#listed[@]}
    export GSHMEM_CTEST_GPU_LIST=$CUDA_VISIBLE_DEVICES
  fi
  export GSHMEM_CTEST_GPUS=$gpus
fi
gpus=$GSHMEM_CTEST_GPUS
spec=$build/ctest-gpus.json
{
  printf '{"version": {"major": 1, "minor": 0}, "local": [{"gpus": ['
  for (( i = 0; i < gpus; ++i )); do
    printf '%s{"id": "%d", "slots": 1}' "$([[ $i -gt 0 ]] && echo ', ')" "$i"
  done
  printf ']}]}\n'
} > "$spec"
jobs=${CTEST_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}
echo "run_ctest.sh: $gpus GPU(s) in the resource spec, $jobs jobs"
# Open MPI refuses root (CI containers) and too few cores unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
cd "$build"
exec ctest --output-on-failure --no-tests=error -j "$jobs" --resource-spec-file "$spec" "$@"
