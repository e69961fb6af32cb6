#!/usr/bin/env bash
# Starts an OpenSHMEM test unless the probe (oshmem_probe.sh) found that this
# machine's OpenSHMEM crashes without gshmem; then prints why and exits 77,
# which CTest reports as skipped. Without a verdict (the test started by
# hand) the test just runs.
#   oshmem_guard.sh VERDICT_FILE -- COMMAND...
verdict=$1
shift
[[ "${1:-}" == -- ]] && shift
if [[ -f "$verdict" ]] && grep -q '^broken' "$verdict"; then
  echo "skipped: this machine's OpenSHMEM crashes in shmem_init without gshmem (probe: $(sed 's/^broken: //' "$verdict"))"
  exit 77
fi
exec "$@"
