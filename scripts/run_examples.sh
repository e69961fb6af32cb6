#!/usr/bin/env bash
# Runs the example programs the way a user runs them and prints a table
#   example | result | seconds
# last. Each runs on 2 PEs under mpirun (uniqueid_launch starts its PEs
# itself), with CUDA_MODULE_LOADING=EAGER, under a timeout; its output goes
# to LOG_DIR/<example>.log, the table to LOG_DIR/summary.txt.
#   scripts/run_examples.sh [BUILD_DIR] [EXAMPLE...]   (default: build, all built)
#   scripts/run_examples.sh --check BUILD_DIR EXAMPLE...  only check that each
#                  example is built and executable (exit 1 naming the missing)
#   LOG_DIR          default BUILD_DIR/examples-logs
#   EXAMPLE_TIMEOUT  seconds per example (default 60)
# Exit status: 0 every example passed; 1 one failed, timed out or is
# missing; 77 fewer than 2 GPUs (nothing run), unless
# GSHMEM_ALLOW_GPU_SHARING=1, which runs the PEs on one GPU.
# GSHMEM_EXAMPLES_GPUS overrides the GPU count (to test this script).
set -uo pipefail
check_only=0
if [[ "${1:-}" == --check ]]; then check_only=1; shift; fi
build=${1:-build}
shift || true
bin=$build/examples
if [[ $# -gt 0 ]]; then
  examples=("$@")
else
  examples=()
  for f in "$bin"/*; do [[ -f "$f" && -x "$f" ]] && examples+=("$(basename "$f")"); done
fi
if [[ ${#examples[@]} -eq 0 ]]; then
  echo "run_examples.sh: no examples in $bin (configure with -DGSHMEM_BUILD_EXAMPLES=ON and build)" >&2
  exit 1
fi
missing=0
for e in "${examples[@]}"; do
  if [[ ! -x "$bin/$e" ]]; then echo "run_examples.sh: $bin/$e is not built" >&2; missing=1; fi
done
if [[ $check_only == 1 ]]; then
  [[ $missing == 0 ]] && echo "run_examples.sh: ${#examples[@]} examples built: ${examples[*]}"
  exit $missing
fi

gpus=${GSHMEM_EXAMPLES_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
if [[ -z "${GSHMEM_EXAMPLES_GPUS:-}" && -n "${CUDA_VISIBLE_DEVICES+set}" ]]; then
  # The GPUs this run may use (e.g. those CTest gave the test examples_run).
  IFS=, read -r -a visible <<< "$CUDA_VISIBLE_DEVICES"
  (( ${#visible[@]} < gpus )) && gpus=${#visible[@]}
fi
if [[ $gpus -lt 2 && "${GSHMEM_ALLOW_GPU_SHARING:-0}" != 1 ]] || [[ $gpus -lt 1 ]]; then
  echo "run_examples.sh: the examples run 2 PEs and each needs a GPU: needs 2 GPUs, found $gpus" \
       "(GSHMEM_ALLOW_GPU_SHARING=1 runs both PEs on one GPU)"
  exit 77
fi

logs=${LOG_DIR:-$build/examples-logs}
mkdir -p "$logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0
launcher=(mpirun -np 2 --bind-to none)
rows=("example|result|seconds")
failed=0
for e in "${examples[@]}"; do
  [[ -x "$bin/$e" ]] || { rows+=("$e|NOT BUILT|"); failed=1; continue; }
  case "$e" in
    uniqueid_launch) cmd=("$bin/$e" 2) ;;   # starts its own PEs
    *) cmd=("${launcher[@]}" "$bin/$e") ;;
  esac
  start=$(date +%s.%N)
  timeout "${EXAMPLE_TIMEOUT:-60}" "${cmd[@]}" > "$logs/$e.log" 2>&1
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  case $rc in
    0) result=passed ;;
    124) result="TIMED OUT after ${EXAMPLE_TIMEOUT:-60}s"; failed=1 ;;
    *) result="FAILED (exit $rc)"; failed=1 ;;
  esac
  rows+=("$e|$result|$secs")
  echo "== $e: $result ($secs s)"
  sed 's/^/   /' "$logs/$e.log" | head -n 40
done
printf '%s\n' "${rows[@]}" | awk -F'|' '{ printf "%-24s %-28s %s\n", $1, $2, $3 }' | tee "$logs/summary.txt"
exit $failed
