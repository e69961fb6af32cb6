#!/bin/sh
# Runs a GPU test on the GPUs CTest allocated to it: CTest's resource
# allocation (RESOURCE_GROUPS, written by tests/resources at ctest time; the
# resource spec by scripts/run_ctest.sh) names one "gpus" resource per group
# in CTEST_RESOURCE_GROUP_<i>_GPUS ("id:<k>,slots:1"); this makes
# CUDA_VISIBLE_DEVICES exactly those GPUs, so tests that run side by side
# never share one, and each test's PEs pick GPUs among its own as usual
# (node-local rank modulo visible GPUs). <k> indexes the GPUs the spec was
# made from: GSHMEM_CTEST_GPU_LIST (the CUDA_VISIBLE_DEVICES that
# run_ctest.sh found, comma-separated) when set, else the machine's GPUs
# 0, 1, ...; a CUDA_VISIBLE_DEVICES of the test's own (e.g. 0,1) is replaced
# by its allocation (which has as many GPUs as the test needs).
# Without an allocation (ctest without a resource spec, or no GPU), the
# command runs unchanged.
#   gpu_slots.sh COMMAND [ARGS...]
if [ -n "${CTEST_RESOURCE_GROUP_COUNT:-}" ]; then
  devices=""
  i=0
  while [ "$i" -lt "$CTEST_RESOURCE_GROUP_COUNT" ]; do
    eval "group=\${CTEST_RESOURCE_GROUP_${i}_GPUS:-}"
    id=${group#id:}
    id=${id%%,*}
    case "$id" in
      ''|*[!0-9]*) echo "gpu_slots.sh: resource group $i is not a GPU ('$group')" >&2; exit 1 ;;
    esac
    device=$id
    if [ -n "${GSHMEM_CTEST_GPU_LIST:-}" ]; then
      device=$(printf '%s\n' "$GSHMEM_CTEST_GPU_LIST" | cut -d, -f$((id + 1)))
      if [ -z "$device" ]; then
        echo "gpu_slots.sh: GPU $id is not in GSHMEM_CTEST_GPU_LIST=$GSHMEM_CTEST_GPU_LIST" >&2
        exit 1
      fi
    fi
    devices="${devices:+$devices,}$device"
    i=$((i + 1))
  done
  CUDA_VISIBLE_DEVICES=$devices
  export CUDA_VISIBLE_DEVICES
  echo "gpu_slots.sh: CUDA_VISIBLE_DEVICES=$devices (CTest's allocation)" >&2
fi
exec "$@"
