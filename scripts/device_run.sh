#!/usr/bin/env bash
# Runs the whole suite on the GPU machine: configure + build with every core
# into build-device, ctest (all labels, GPU tests included) with logs, then
# the quick benchmarks if present, and a short summary table LAST.
# Logs go to $OUT (or ./device-logs when OUT is unset).
#   CTEST_TIMEOUT  seconds for the whole ctest run (default 420)
#   BENCH_TIMEOUT  seconds for scripts/bench.sh --quick (default 240)
#   CTEST_ARGS     extra ctest arguments (e.g. "-R runtime_")
set -uo pipefail
cd "$(dirname "$0")/.."

# Unbuffered-enough output: partial logs survive a timeout.
if [[ -z "${GSHMEM_DEVICE_RUN_LINEBUFFERED:-}" ]] && command -v stdbuf >/dev/null; then
  export GSHMEM_DEVICE_RUN_LINEBUFFERED=1
  exec stdbuf -oL -eL bash "$0" "$@"
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0
[[ -x /usr/local/cuda/bin/nvcc ]] && export PATH=/usr/local/cuda/bin:$PATH

logs=${OUT:-$PWD/device-logs}
mkdir -p "$logs"
build=build-device
jobs=$(nproc)
summary=()
# Rows are "a|b|c"; aligned with awk (column(1) is not everywhere).
print_table() {
  printf '%s\n' "${summary[@]}" | awk -F'|' '{ for (i = 1; i <= NF; ++i) { row[NR, i] = $i;
    if (length($i) > w[i]) w[i] = length($i) } n[NR] = NF }
    END { for (r = 1; r <= NR; ++r) { line = ""; for (i = 1; i <= n[r]; ++i)
      line = line sprintf("%-" w[i] + 2 "s", row[r, i]); print line } }'
}

echo "== device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | tr -s ' ' | paste -sd, -)"
echo "== configure + build ($jobs jobs)"
start=$(date +%s)
if cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-} >"$logs/configure.log" 2>&1 &&
   cmake --build "$build" -j"$jobs" >"$logs/build.log" 2>&1; then
  summary+=("build|ok|$(( $(date +%s) - start ))s")
else
  summary+=("build|FAILED|see build.log / configure.log")
  tail -n 60 "$logs/configure.log" "$logs/build.log"
  printf '\n== summary\n'; print_table
  exit 1
fi

echo "== ctest"
start=$(date +%s)
# shellcheck disable=SC2086
(cd "$build" && timeout "${CTEST_TIMEOUT:-420}" ctest --output-on-failure --no-tests=error \
   --output-junit "$logs/ctest.xml" ${CTEST_ARGS:-}) 2>&1 | tee "$logs/ctest.log"
ctest_rc=${PIPESTATUS[0]}
result=$(grep -E "tests passed|tests failed" "$logs/ctest.log" | tail -1)
[[ $ctest_rc -eq 124 ]] && result="TIMED OUT after ${CTEST_TIMEOUT:-420}s; $result"
summary+=("ctest|rc=$ctest_rc|${result:-no summary line}|$(( $(date +%s) - start ))s")
skipped=$(grep -cE "\*\*\*Skipped|Not Run" "$logs/ctest.log" || true)
summary+=("ctest skipped|$skipped|")
while read -r line; do summary+=("  failed|$line|"); done < <(grep -E "^\s+[0-9]+ - " "$logs/ctest.log" | sed 's/^ *//')

if [[ -x scripts/bench.sh || -f scripts/bench.sh ]]; then
  echo "== scripts/bench.sh --quick"
  start=$(date +%s)
  BUILD_DIR=$build timeout "${BENCH_TIMEOUT:-240}" bash scripts/bench.sh --quick 2>&1 | tee "$logs/bench.log"
  bench_rc=${PIPESTATUS[0]}
  summary+=("bench --quick|rc=$bench_rc|$(( $(date +%s) - start ))s")
fi

printf '\n== summary (logs in %s)\n' "$logs"
print_table
[[ $ctest_rc -eq 0 ]]
