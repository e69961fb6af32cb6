#!/usr/bin/env bash
# Runs the minimal OpenSHMEM program (oshmem_probe.c, no gshmem) RUNS times
# under the OpenSHMEM launcher and writes a one-line verdict to VERDICT_FILE:
#   ok: N of N runs
#   broken: crashed K of N runs (first: <exit status and last output lines>)
# The OpenSHMEM tests read it (oshmem_guard.sh): where OpenSHMEM crashes by
# itself they report "skipped" and say why, instead of failing for a defect
# that is not gshmem's. Every run counts; nothing is retried.
#   oshmem_probe.sh VERDICT_FILE RUNS -- LAUNCHER... PROBE
#   GSHMEM_OSHMEM_PROBE_RUNS overrides RUNS.
set -u
verdict=$1 runs=${GSHMEM_OSHMEM_PROBE_RUNS:-$2}
shift 2
[[ "${1:-}" == -- ]] && shift
rm -f "$verdict"
crashed=0 first=""
for ((i = 1; i <= runs; ++i)); do
  out=$(timeout 60 "$@" 2>&1)
  rc=$?
  if [[ $rc -ne 0 ]] || ! grep -q '^oshmem probe: ok' <<<"$out"; then
    crashed=$((crashed + 1))
    if [[ -z "$first" ]]; then
      [[ $rc -eq 124 ]] && status="timed out after 60 s" || status="exit status $rc"
      first="run $i: $status: $(grep -v '^\s*$' <<<"$out" | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
    fi
  fi
done
if [[ $crashed -eq 0 ]]; then
  line="ok: $runs of $runs runs"
else
  line="broken: crashed $crashed of $runs runs (first: $first)"
fi
echo "oshmem probe: $line"
echo "$line" > "$verdict" || { echo "oshmem probe: cannot write $verdict" >&2; exit 1; }
