#!/usr/bin/env bash
# Runs the whole suite on a GPU machine from a fresh clone, in one command:
# configure + build (Release, every core, Ninja where found) into
# build-device, ctest (all labels, GPU tests included, side by side, each
# GPU test on GPUs of its own: scripts/run_ctest.sh; tests that need more
# GPUs than the machine has report "skipped"), then the quick benchmark on
# the same build, and a short summary table LAST, with each stage's seconds
# (configure, build, ctest, pip install ./python from the test
# python_pip_install, bench). Results go to $OUT (or ./device-logs when OUT is unset),
# kept to a handful of files: summary.txt (the table), ctest.log,
# bench-summary.md with the headline plot, the benchmark's results
# tarball, and device-run-logs.tar.gz with every other log (configure, build,
# ctest JUnit XML, bench, compile times, each example's output: the examples
# run inside ctest as the test examples_run).
#   scripts/device_run.sh [--no-bench] [--no-ctest] [--compile-times] [--sanitize]
#                         [--nvshmem-programs NVSHMEM_SRC [--vs-nvshmem]] [--python]
#   --python       also the Python package on the GPUs (scripts/python_gpu.sh:
#                  its extension built for the PyTorch venv, the torchrun
#                  checks, the dead-peer job, the benchmark beside PyTorch's
#                  symmetric memory); logs in device-run-logs.tar.gz (python/),
#                  the benchmark's table as OUT/bench_vs_torch_symm_mem.md
#   --nvshmem-programs  also builds NVSHMEM's examples and pt-to-pt perftests
#                  from the NVSHMEM source tree NVSHMEM_SRC against this
#                  build's install (scripts/nvshmem_programs.sh; the compile
#                  runs beside ctest) and runs them after the benchmark;
#                  the report goes to OUT/nvshmem-programs.md (NVML_INCLUDE:
#                  where nvml.h is, when the toolkit lacks it)
#                  NVSHMEM_PROGRAMS_ONLY: a regular expression; only the
#                  programs whose name matches (nvshmem_programs.sh --only)
#   --vs-nvshmem   with --nvshmem-programs: the perftests are also built
#                  against NVSHMEM and both builds run back to back
#                  (nvshmem_programs.sh --vs-nvshmem); the side-by-side table
#                  goes to OUT/vs_nvshmem_perftests.md (with its JSON lines
#                  and plot in device-run-logs.tar.gz); VS_REPEAT=N runs each
#                  pair N times, alternating the order (nvshmem_programs.sh --repeat)
#                  NVSHMEM_VS_REMOTE_ONLY: a regular expression; those perftests
#                  run again with every peer remote, both libraries through UCX
#                  (nvshmem_programs.sh --remote; NVSHMEM_VS_REMOTE_TIMEOUT
#                  seconds, default 150): OUT/vs_nvshmem_perftests_remote.md
#                  NVSHMEM_VS_PREBUILT=DIR: NVSHMEM's side built elsewhere
#                  (nvshmem_programs.sh --nvshmem-side-only; its -rdc builds
#                  take minutes), not built here (nvshmem_programs.sh --nvshmem-build)
#                  NVSHMEM_VS_BUILD_VARIANT=NAME=FLAGS: the perftests also
#                  built against gshmem with FLAGS and run in the same rounds
#                  (nvshmem_programs.sh --build-variant; e.g.
#                  p2p_only=-DGSHMEM_DEVICE_REMOTE=0): OUT/vs_nvshmem_perftests_NAME.md
#   --sanitize     also runs GPU tests under compute-sanitizer: memcheck on
#                  SANITIZE_TESTS (default: runtime_state_publisher
#                  heap_gpu_test stream_gpu_test), racecheck on
#                  SANITIZE_RACECHECK_TESTS (default: stream_gpu_test), 2 PEs
#                  each, SANITIZE_TIMEOUT seconds per run (default 90), the
#                  tests' stress loops divided by SANITIZE_ITERATION_DIVISOR
#                  (default 50; GSHMEM_TEST_ITERATION_DIVISOR); the table gets
#                  each run's "ERROR SUMMARY". Test cases tagged
#                  [concurrent-kernels] are left out: the sanitizer runs one
#                  kernel at a time, and they need several at once to finish
#   --no-ctest     builds but runs no ctest (with --sanitize or
#                  --nvshmem-programs, to spend a GPU run on those alone)
#   DEVICE_RUN_BUDGET  seconds the whole script may take (default 560); every
#                  stage gets at most what is left of it (minus 15 s to pack
#                  the logs), so the table is always printed
#   BUILD_TIMEOUT  seconds for configure + build (default 300); on a timeout
#                  the compilers still running are listed
#   CTEST_TIMEOUT  seconds for the whole ctest run (default 300; 540 with
#                  --no-bench, whose DEVICE_RUN_BUDGET default is then 590)
#   BENCH_TIMEOUT  seconds for scripts/bench.sh --quick (default 200)
#   BENCH_ARGS     extra bench.sh arguments (e.g. --vs-nvshmem)
#   CTEST_ARGS     extra ctest arguments (e.g. "-R runtime_")
#   CMAKE_ARGS     extra configure arguments
#   BUILD_TARGETS  build only these targets (space-separated; the runtime
#                  modules a run loads, gshmem_bootstrap_mpi and
#                  gshmem_transport_ucx, included), for a short run: pair
#                  it with CTEST_ARGS naming the tests those targets hold
#   UCX_CUDA_PREFIX  a UCX prefix with CUDA support (default: .ucx-cuda/ when it
#                  travelled with the tree; scripts/ucx_cuda_prefix.sh): UCX_ROOT
#                  and LD_LIBRARY_PATH point at it (the transport's RMA mode)
#   UCX_ROOT       a UCX prefix for the UCX transport module (else: build-ucx/
#                  when it travelled with the tree, made by
#                  `scripts/ucx_prefix.sh pack build-ucx` where UCX headers are
#                  installed; it is linked here against this machine's UCX
#                  run-time libraries with `scripts/ucx_prefix.sh link`)
#   SHARE_GPUS     auto (default): on a machine with ONE GPU, tests of 2 or
#                  more PEs run with their PEs sharing it (GSHMEM_TEST_SHARE_GPUS=1;
#                  correctness only, the benchmark is skipped, tests that need
#                  a GPU per PE, the NCCL bootstraps, are skipped); 1: always; 0: never
#   SHARE_GPUS_MPS 1: when PEs share a GPU, run them under a Multi-Process
#                  Service daemon this script starts (its pipes and logs in a
#                  private folder; quit at the end), so their kernels run at
#                  the same time instead of taking turns; stress loops are
#                  then divided by 10 (GSHMEM_TEST_ITERATION_DIVISOR), not
#                  1000, and each process asks for 16 hardware work queues
#                  (CUDA_DEVICE_MAX_CONNECTIONS). 0 (default): plain time-slicing
set -uo pipefail
cd "$(dirname "$0")/.."
run_bench=1
run_ctest=1
compile_times=0
sanitize=0
nvshmem_src=""
nvp_vs=()
all_args=("$@")
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sanitize) sanitize=1 ;;
    --no-bench) run_bench=0 ;;
    --no-ctest) run_ctest=0 ;;
    --compile-times) compile_times=1 ;;
    --nvshmem-programs)
      [[ $# -ge 2 && -d "$2" ]] || { echo "device_run.sh: --nvshmem-programs needs an NVSHMEM source folder" >&2; exit 2; }
      nvshmem_src=$(cd "$2" && pwd); shift ;;
    --vs-nvshmem) nvp_vs=(--vs-nvshmem) ;;
    --python) python_gpu=1 ;;
    *) echo "device_run.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [[ ${#nvp_vs[@]} -gt 0 && -n "${NVSHMEM_VS_PREBUILT:-}" ]]; then
  [[ -d "$NVSHMEM_VS_PREBUILT" ]] || { echo "device_run.sh: NVSHMEM_VS_PREBUILT=$NVSHMEM_VS_PREBUILT: no such folder" >&2; exit 2; }
  nvp_vs+=(--nvshmem-build "$(cd "$NVSHMEM_VS_PREBUILT" && pwd)")
fi
# Without the benchmark, the tests get the run's time: the whole suite takes
# longer than 300 s on 2 GPUs now (docs/device-run.md, how long it takes).
if [[ $run_bench == 0 ]]; then
  : "${CTEST_TIMEOUT:=540}" "${DEVICE_RUN_BUDGET:=590}"
  export CTEST_TIMEOUT DEVICE_RUN_BUDGET
fi
all_start=$(date +%s)

# Unbuffered-enough output: partial logs survive a timeout.
if [[ -z "${GSHMEM_DEVICE_RUN_LINEBUFFERED:-}" ]] && command -v stdbuf >/dev/null; then
  export GSHMEM_DEVICE_RUN_LINEBUFFERED=1
  exec stdbuf -oL -eL bash "$0" "${all_args[@]}"
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0
[[ -x /usr/local/cuda/bin/nvcc ]] && export PATH=/usr/local/cuda/bin:$PATH

out=${OUT:-$PWD/device-logs}
build=build-device
# Working logs live in $out from the start, so whatever ran comes back even
# when the machine's own limit ends this script; packed at the end.
logs=$out/logs
mkdir -p "$out" "$logs"
out=$(cd "$out" && pwd)
logs=$(cd "$logs" && pwd)
# One budget for the whole run: a stage's timeout is its own limit or what is
# left of the budget, whichever is smaller.
deadline=$(( all_start + ${DEVICE_RUN_BUDGET:-560} - 15 ))
stage_timeout() {  # default_seconds -> seconds this stage may take (>= 1)
  local left=$(( deadline - $(date +%s) ))
  (( left < 1 )) && left=1
  (( $1 < left )) && echo "$1" || echo "$left"
}
jobs=$(nproc)
summary=()
# Rows are "a|b|c"; aligned with awk (column(1) is not everywhere).
print_table() {
  printf '%s\n' "${summary[@]}" | awk -F'|' '{ for (i = 1; i <= NF; ++i) { row[NR, i] = $i;
    if (length($i) > w[i]) w[i] = length($i) } n[NR] = NF }
    END { for (r = 1; r <= NR; ++r) { line = ""; for (i = 1; i <= n[r]; ++i)
      line = line sprintf("%-" w[i] + 2 "s", row[r, i]); print line } }'
}
# The MPS daemon this script started, if any (quit in finish).
mps_pipe=""
stop_mps() {
  [[ -n "$mps_pipe" ]] || return 0
  echo quit | CUDA_MPS_PIPE_DIRECTORY="$mps_pipe" timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1
  mps_pipe=""
}
trap stop_mps EXIT
# Packs the logs into $out and prints the table last.
finish() {
  stop_mps
  summary+=("total|$(( $(date +%s) - all_start ))s|")
  [[ -f "$logs/ctest.log" ]] && cp "$logs/ctest.log" "$out/"
  tar -C "$logs" -czf "$out/device-run-logs.tar.gz" . 2>/dev/null && rm -rf "$logs"
  print_table > "$out/summary.txt"
  printf '\n== summary (in %s; every log in device-run-logs.tar.gz)\n' "$out"
  cat "$out/summary.txt"
}

echo "== requirements (scripts/install-deps.sh)"
if ! bash scripts/install-deps.sh > "$logs/install-deps.log" 2>&1; then
  cat "$logs/install-deps.log"
  summary+=("requirements|MISSING|see install-deps.log")
  finish
  exit 1
fi
grep -E '^install-deps: (nvcc|cmake|MPI|Catch2)' "$logs/install-deps.log"
echo "== device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | tr -s ' ' | paste -sd, -)"
# One GPU: the tests of 2 or more PEs run with their PEs sharing it
# (GSHMEM_TEST_SHARE_GPUS, tests/support/test_main.cpp), which checks every
# assertion but no timing; the benchmark is then not run.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [[ "${SHARE_GPUS:-auto}" == 1 || ( "${SHARE_GPUS:-auto}" == auto && $gpus -eq 1 ) ]]; then
  export GSHMEM_TEST_SHARE_GPUS=1
  # PEs on one GPU take turns (the GPU time-slices between processes): every
  # round trip of a ping-pong waits for the other process's turn (4.5 ms per
  # round trip measured on one H200; a 10^6-round litmus would take over an
  # hour), so the stress loops are cut to a thousandth; one-way streams of
  # updates are not slowed as much.
  sharing="time-sliced"
  if [[ "${SHARE_GPUS_MPS:-0}" == 1 ]]; then
    # Under MPS the processes' kernels share the GPU's SMs at the same time,
    # so a ping-pong round trip no longer waits for a time slice.
    if command -v nvidia-cuda-mps-control >/dev/null; then
      mps_pipe=$(mktemp -d "${TMPDIR:-/tmp}/gshmem-mps.XXXXXX")
      mkdir -p "$logs/mps"
      export CUDA_MPS_PIPE_DIRECTORY="$mps_pipe" CUDA_MPS_LOG_DIRECTORY="$logs/mps"
      if nvidia-cuda-mps-control -d && sleep 1 && echo get_server_list | timeout 20 nvidia-cuda-mps-control >/dev/null; then
        sharing="MPS"
        # MPS clients draw their hardware work queues from one pool, fewer
        # each than the 8 a process gets alone: a test whose 8 streams each
        # hold a blocked wait then finds two streams behind one queue and
        # deadlocks (seen on one H100; 16 asked for, it passes).
        export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-16}
        export GSHMEM_TEST_ITERATION_DIVISOR=${GSHMEM_TEST_ITERATION_DIVISOR:-10}
      else
        echo "device_run.sh: the MPS daemon did not start (see logs/mps); PEs take turns on the GPU" >&2
        stop_mps
        unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
      fi
    else
      echo "device_run.sh: SHARE_GPUS_MPS=1 but no nvidia-cuda-mps-control; PEs take turns on the GPU" >&2
    fi
  fi
  export GSHMEM_TEST_ITERATION_DIVISOR=${GSHMEM_TEST_ITERATION_DIVISOR:-1000}
  summary+=("mode|$gpus GPU: PEs share it ($sharing)|correctness only (GSHMEM_TEST_SHARE_GPUS=1, stress loops / $GSHMEM_TEST_ITERATION_DIVISOR); no benchmark|")
  if [[ $run_bench == 1 ]]; then run_bench=0; fi
fi
# A UCX with CUDA support that travelled with the tree (UCX_CUDA_PREFIX, else
# .ucx-cuda/, made by scripts/ucx_cuda_prefix.sh from PyPI's libucx-cu13
# wheel): the module is built against it and the whole process runs on it
# (LD_LIBRARY_PATH first: Open MPI's UCX components would load the machine's
# own UCX otherwise), which turns on the transport's RMA mode on GPU memory
# and registers the RMA-mode GPU tests.
ucx_cuda=${UCX_CUDA_PREFIX:-}
if [[ -z "$ucx_cuda" && -f .ucx-cuda/include/ucp/api/ucp.h ]]; then ucx_cuda=$PWD/.ucx-cuda; fi
if [[ -z "${UCX_ROOT:-}" && -n "$ucx_cuda" ]]; then
  export UCX_ROOT=$ucx_cuda
  export LD_LIBRARY_PATH=$ucx_cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
# UCX headers that travelled with the tree, over this machine's UCX run-time
# libraries (scripts/ucx_prefix.sh says why that pairing).
if [[ -z "${UCX_ROOT:-}" && -f build-ucx/include/ucp/api/ucp.h ]]; then
  if ucx_dir=$(bash scripts/ucx_prefix.sh link "$PWD/build-ucx" 2>"$logs/ucx_prefix.log"); then
    export UCX_ROOT=$ucx_dir
  fi
fi
summary+=("ucx|${UCX_ROOT:-not found (no UCX_ROOT, no build-ucx/)}|the UCX transport module is built where UCX is found|")
# The Triton device library built elsewhere (this machine may have no clang
# recent enough): .triton/gshmem_triton.ll, when it travelled with the tree.
if [[ -f .triton/gshmem_triton.ll && "${CMAKE_ARGS:-}" != *GSHMEM_TRITON_BITCODE_FILE* ]]; then
  CMAKE_ARGS="${CMAKE_ARGS:-} -DGSHMEM_TRITON_BITCODE_FILE=$PWD/.triton/gshmem_triton.ll"
fi
echo "== configure + build ($jobs jobs)"
start=$(date +%s)
build_limit=$(stage_timeout "${BUILD_TIMEOUT:-300}")
source scripts/cmake_generator.sh
generator=$(gshmem_generator_args "$build")
# shellcheck disable=SC2086
timeout "$build_limit" bash -c 'cmake -S . -B "$1" $6 -DCMAKE_BUILD_TYPE=Release $2 >"$3/configure.log" 2>&1 &&
  date +%s > "$3/configured.at" &&
  cmake --build "$1" -j"$4" ${5:+--target $5} >"$3/build.log" 2>&1' _ "$build" "${CMAKE_ARGS:-}" "$logs" "$jobs" \
  "${BUILD_TARGETS:-}" "$generator" &
build_pid=$!
# While it builds: every 30 s, which compilers run and for how long, so a
# source that stalls the build is named even when the build never ends.
while kill -0 "$build_pid" 2>/dev/null; do
  sleep 5
  if (( ($(date +%s) - start) % 30 < 5 )); then
    { echo "--- $(( $(date +%s) - start ))s"
      ps -eo etimes=,args= | awk '$2 ~ /(cicc|cudafe\+\+|ptxas|cc1plus|nvlink|fatbinary)$/ {
        src = ""; for (i = 3; i <= NF; ++i) if ($i ~ /\.(cu|cpp|ii|cpp1\.ii|cpp4\.ii|ptx)$/) src = $i
        printf "%5ss %s %s\n", $1, $2, src }' | sort -rn | head -12
    } >> "$logs/build-progress.log"
  fi
done
wait "$build_pid"
build_rc=$?
configured_at=$(cat "$logs/configured.at" 2>/dev/null || echo "$start")
summary+=("configure|$(grep -q 'CMAKE_GENERATOR:INTERNAL=Ninja' "$build/CMakeCache.txt" 2>/dev/null && echo Ninja || echo Make)||$(( configured_at - start ))s")
if [[ $build_rc -eq 0 ]]; then
  summary+=("build|ok ($jobs jobs)|$(grep -o 'CUDA architectures [0-9a-z;-]*' "$logs/configure.log")|$(( $(date +%s) - configured_at ))s")
else
  [[ $build_rc -eq 124 ]] && what="TIMED OUT after ${build_limit}s (compilers still running: build-progress.log)" ||
    what="FAILED (see build.log / configure.log)"
  summary+=("build|$what||$(( $(date +%s) - configured_at ))s")
  tail -n 40 "$logs/configure.log" "$logs/build.log"
  [[ -f "$logs/build-progress.log" ]] && tail -n 14 "$logs/build-progress.log"
  finish
  exit 1
fi

# NVSHMEM's programs compile beside ctest (CPU only, a third of the cores).
nvp_dir=${TMPDIR:-/tmp}/gshmem-device-nvshmem-programs
nvp_pid=""
if [[ -n "$nvshmem_src" ]]; then
  if cmake --install "$build" --prefix "$PWD/$build/prefix" > "$logs/install.log" 2>&1; then
    bash scripts/nvshmem_programs.sh "$nvshmem_src" --prefix "$PWD/$build/prefix" --build-dir "$nvp_dir" \
      --build-only "${nvp_vs[@]}" ${NVSHMEM_PROGRAMS_ONLY:+--only "$NVSHMEM_PROGRAMS_ONLY"} ${NVSHMEM_VS_BUILD_VARIANT:+--build-variant "$NVSHMEM_VS_BUILD_VARIANT"} --jobs $(( jobs / 3 > 0 ? jobs / 3 : 1 )) ${NVML_INCLUDE:+--nvml-include "$NVML_INCLUDE"} > "$logs/nvshmem-programs-build.log" 2>&1 &
    nvp_pid=$!
  else
    summary+=("nvshmem programs|install FAILED|see install.log|")
  fi
fi

ctest_rc=0
if [[ $run_ctest == 1 ]]; then
echo "== ctest"
start=$(date +%s)
# One ctest run, tests side by side: each GPU test on GPUs of its own (CTest's
# resource allocation, scripts/run_ctest.sh), the CPU tests beside them.
: > "$logs/ctest.log"
# shellcheck disable=SC2086
timeout "$(stage_timeout "${CTEST_TIMEOUT:-300}")" bash scripts/run_ctest.sh "$build" \
  --output-junit "$logs/ctest.xml" ${CTEST_ARGS:-} 2>&1 | tee -a "$logs/ctest.log"
ctest_rc=${PIPESTATUS[0]}
# ctest says "No tests were found" for a pass that CTEST_ARGS empties; both
# empty is an error (a run that tests nothing must not look green).
if ! grep -qE "tests passed|tests failed" "$logs/ctest.log" && (( ctest_rc == 0 )); then ctest_rc=8; fi
result=$(grep -E "tests passed|tests failed" "$logs/ctest.log" | sed 's/^[0-9]*% tests passed, //' | paste -sd';' -)
(( ctest_rc == 124 )) && result="TIMED OUT after ${CTEST_TIMEOUT:-300}s; $result"
summary+=("ctest|rc=$ctest_rc|${result:-no summary line} ($(grep -m1 -o '[0-9]* GPU(s) in the resource spec, [0-9]* jobs' "$logs/ctest.log"))|$(( $(date +%s) - start ))s")
# pip install ./python against this build's install (the test python_pip_install).
pip_line=$(grep -h -m1 'python_pip_install: pip ' "$build/Testing/Temporary/LastTest.log" 2>/dev/null)
[[ -n "$pip_line" ]] && summary+=("pip install ./python|${pip_line#python_pip_install: }||$(grep -o 'in [0-9]* s' <<< "$pip_line" | tr -dc 0-9)s")
# The slowest tests, so that a budget overrun names its cause.
slowest=$(grep -E "^ *[0-9]+/[0-9]+ Test +#[0-9]+: " "$logs/ctest.log" |
  sed -E 's/.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/' | grep -E '^[0-9.]+ ' |
  sort -rn | head -5 | awk '{ printf "%s %.0fs, ", $2, $1 }' | sed 's/, $//')
[[ -n "$slowest" ]] && summary+=("ctest slowest|$slowest|")
# ctest ends with "The following tests did not run:" (skipped) and
# "The following tests FAILED:" lists, one "  N - name (reason)" per line.
list_section() {
  awk -v head="$1" 'index($0, head) { on = 1; next } on && /^[[:space:]]+[0-9]+ - / {
    sub(/^[[:space:]]+[0-9]+ - /, ""); print; next } on { on = 0 }' "$logs/ctest.log"
}
skipped=$(list_section "tests did not run" | awk '{print $1}' | paste -sd' ' -)
[[ -n "$skipped" ]] && summary+=("ctest skipped|$skipped|(each says why in ctest.log)")
while read -r line; do [[ -n "$line" ]] && summary+=("  FAILED|$line|"); done < <(list_section "tests FAILED")
# The examples ran inside ctest (test examples_run, scripts/run_examples.sh):
# their table and each one's output.
if [[ -f "$build/examples-logs/summary.txt" ]]; then
  cp -r "$build/examples-logs" "$logs/examples"
  passed=$(grep -c ' passed ' "$build/examples-logs/summary.txt")
  total=$(( $(wc -l < "$build/examples-logs/summary.txt") - 1 ))
  summary+=("examples|$passed of $total passed|$(grep -v -e ' passed ' -e '^example ' "$build/examples-logs/summary.txt" | awk '{print $1}' | paste -sd' ' -)|")
fi
else
  summary+=("ctest|not run (--no-ctest)||")
fi

if [[ $run_bench == 1 ]]; then
  echo "== scripts/bench.sh --quick"
  start=$(date +%s)
  rm -rf "$logs/bench-out"
  OUT="$logs/bench-out" timeout "$(stage_timeout "${BENCH_TIMEOUT:-200}")" bash scripts/bench.sh --quick --no-deps --build-dir "$build" ${BENCH_ARGS:-} 2>&1 |
    tee "$logs/bench.log"
  bench_rc=${PIPESTATUS[0]}
  met=$(grep -o '[0-9]* target(s) not met' "$logs/bench.log" | tail -1)
  if [[ -z "$met" ]]; then  # no summary: say why rather than "all targets met"
    grep -q "^summarize: " "$logs/bench.log" && met="all targets met" ||
      met="no summary ($([[ $bench_rc -eq 124 ]] && echo "timed out" || echo "see bench.log"))"
  fi
  summary+=("bench --quick|rc=$bench_rc|$met|$(( $(date +%s) - start ))s")
  # The table and the two headline plots; the results tarball has the rest.
  [[ -f "$logs/bench-out/summary.md" ]] && cp "$logs/bench-out/summary.md" "$out/bench-summary.md"
  # (At most 8 files come back from a device run: the other plots are in
  # the results tarball.)
  for f in "$logs/bench-out"/results-*.tar.gz "$logs/bench-out/ratio_to_floor.png"; do
    [[ -f "$f" ]] && mv "$f" "$out/"
  done
fi

if [[ -n "$nvp_pid" ]]; then
  echo "== NVSHMEM's programs (scripts/nvshmem_programs.sh)"
  start=$(date +%s)
  wait "$nvp_pid"
  timeout "$(stage_timeout "${NVSHMEM_PROGRAMS_TIMEOUT:-240}")" bash scripts/nvshmem_programs.sh "$nvshmem_src" \
    --run-only "${nvp_vs[@]}" ${NVSHMEM_PROGRAMS_ONLY:+--only "$NVSHMEM_PROGRAMS_ONLY"} ${NVSHMEM_VS_BUILD_VARIANT:+--build-variant "$NVSHMEM_VS_BUILD_VARIANT"} --prefix "$PWD/$build/prefix" --build-dir "$nvp_dir" --timeout "${NVSHMEM_PROGRAM_TIMEOUT:-30}" \
    ${NVML_INCLUDE:+--nvml-include "$NVML_INCLUDE"} \
    > "$logs/nvshmem-programs.log" 2>&1
  nvp_rc=$?
  # A stage cut short by the budget never reached its comparison: make the
  # table from the runs that finished (the script reads their logs).
  if [[ ${#nvp_vs[@]} -gt 0 && ! -f "$nvp_dir/vs_nvshmem_perftests.md" && -f "$nvp_dir/programs.tsv" ]]; then
    python3 scripts/nvshmem_perftests_vs.py "$nvp_dir" \
      --title "NVIDIA's perftests: gshmem against NVSHMEM, $(date -u '+%Y-%m-%d %H:%M UTC'), the runs that finished before the stage's time ran out (rc=$nvp_rc)" \
      >> "$logs/nvshmem-programs.log" 2>&1
  fi
  [[ -f "$nvp_dir/report.md" ]] && cp "$nvp_dir/report.md" "$out/nvshmem-programs.md"
  [[ -d "$nvp_dir/logs" ]] && tar -C "$nvp_dir" -czf "$logs/nvshmem-programs-logs.tar.gz" logs programs.tsv $(cd "$nvp_dir" && ls -d logs-nvshmem 2>/dev/null) 2>/dev/null
  [[ -f "$nvp_dir/vs_nvshmem_perftests.md" ]] && cp "$nvp_dir/vs_nvshmem_perftests.md" "$out/"
  for f in "$nvp_dir"/vs_nvshmem_perftests.{md,jsonl,png}; do  # also in the logs tarball
    [[ -f "$f" ]] && cp "$f" "$logs/"
  done
  if [[ -n "${NVSHMEM_VS_BUILD_VARIANT:-}" ]]; then
    variant=${NVSHMEM_VS_BUILD_VARIANT%%=*}
    [[ -d "$nvp_dir/logs-build-$variant" ]] && tar -C "$nvp_dir" -czf "$logs/nvshmem-programs-$variant-logs.tar.gz" "logs-build-$variant"
    for f in "$nvp_dir/vs_nvshmem_perftests_$variant".{md,jsonl,png} "$nvp_dir/vs_build_$variant".{md,png}; do
      [[ -f "$f" ]] && cp "$f" "$logs/"
    done
    if [[ -f "$nvp_dir/vs_nvshmem_perftests_$variant.md" ]]; then
      cp "$nvp_dir/vs_nvshmem_perftests_$variant.md" "$out/"
      summary+=("vs NVSHMEM, build $variant|$(grep -m1 -o '[0-9]* rows compared[^*]*' "$nvp_dir/vs_nvshmem_perftests_$variant.md")|vs_nvshmem_perftests_$variant.md|")
    fi
    if [[ -f "$nvp_dir/vs_build_$variant.md" ]]; then
      summary+=("default build / $variant|$(grep -m1 -o '[0-9]* rows: median[^*]*' "$nvp_dir/vs_build_$variant.md")|vs_build_$variant.md (logs)|")
    fi
  fi
  if [[ ${#nvp_vs[@]} -gt 0 && -n "${NVSHMEM_VS_REMOTE_ONLY:-}" ]]; then
    echo "== NVIDIA's perftests with every peer remote (nvshmem_programs.sh --remote)"
    rstart=$(date +%s)
    timeout "$(stage_timeout "${NVSHMEM_VS_REMOTE_TIMEOUT:-150}")" bash scripts/nvshmem_programs.sh "$nvshmem_src" \
      --run-only --remote "${nvp_vs[@]}" --only "$NVSHMEM_VS_REMOTE_ONLY" --prefix "$PWD/$build/prefix" \
      --build-dir "$nvp_dir" --timeout "${NVSHMEM_PROGRAM_TIMEOUT:-30}" > "$logs/nvshmem-programs-remote.log" 2>&1
    rrc=$?
    if [[ ! -f "$nvp_dir/vs_nvshmem_perftests_remote.md" ]]; then
      python3 scripts/nvshmem_perftests_vs.py "$nvp_dir" --variant remote \
        --title "NVIDIA's perftests, every peer remote (UCX): the runs that finished (rc=$rrc)" \
        >> "$logs/nvshmem-programs-remote.log" 2>&1
    fi
    tar -C "$nvp_dir" -czf "$logs/nvshmem-programs-remote-logs.tar.gz" $(cd "$nvp_dir" && ls -d logs-remote logs-nvshmem-remote 2>/dev/null) 2>/dev/null
    for f in "$nvp_dir"/vs_nvshmem_perftests_remote.{md,jsonl,png}; do [[ -f "$f" ]] && cp "$f" "$logs/"; done
    [[ -f "$nvp_dir/vs_nvshmem_perftests_remote.md" ]] && cp "$nvp_dir/vs_nvshmem_perftests_remote.md" "$out/"
    summary+=("vs NVSHMEM, remote (UCX)|rc=$rrc|$(grep -m1 -o '[0-9]* rows compared[^*]*' "$nvp_dir/vs_nvshmem_perftests_remote.md" 2>/dev/null || echo 'no rows: see nvshmem-programs-remote.log')|$(( $(date +%s) - rstart ))s")
  fi
  if [[ -f "$nvp_dir/report.md" ]]; then
    built=$(grep -m1 -o '^[0-9]* of [0-9]* programs built' "$nvp_dir/report.md")
    ran_ok=$(grep -c '^| [^|]* | yes | [^|]*exit 0' "$nvp_dir/report.md")
    summary+=("nvshmem programs|rc=$nvp_rc|${built:-?}; ${ran_ok} ran with exit 0 (nvshmem-programs.md)|$(( $(date +%s) - start ))s")
    if [[ -f "$nvp_dir/vs_nvshmem_perftests.md" ]]; then
      summary+=("vs NVSHMEM (perftests)|$(grep -m1 -o '[0-9]* rows compared[^*]*' "$nvp_dir/vs_nvshmem_perftests.md")|vs_nvshmem_perftests.md|")
    fi
  else
    summary+=("nvshmem programs|rc=$nvp_rc|no report (see nvshmem-programs.log)|$(( $(date +%s) - start ))s")
  fi
fi

if [[ $sanitize == 1 ]]; then
  echo "== compute-sanitizer"
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  sanitize_run() {  # tool test
    local bin
    bin=$(find "$build/tests" -type f -name "$2" -perm -u+x | head -1)
    if [[ ! -x "$cs" || -z "$bin" ]]; then
      summary+=("sanitize $1|$2|not run (no compute-sanitizer or no binary)|"); return
    fi
    local start=$(date +%s) log="$logs/sanitize-$1-$2.log"
    GSHMEM_TEST_GPUS=2 GSHMEM_TEST_ITERATION_DIVISOR=${SANITIZE_ITERATION_DIVISOR:-50} CUDA_MODULE_LOADING=EAGER timeout "$(stage_timeout "${SANITIZE_TIMEOUT:-90}")" mpirun -np 2 --bind-to none \
      "$cs" --tool "$1" --error-exitcode 99 --print-limit 20 "$bin" "~[concurrent-kernels]" > "$log" 2>&1
    local rc=$? errors
    errors=$(grep -oE "(ERROR|RACECHECK) SUMMARY: [0-9]* (error[s]*|hazard[s]* displayed)" "$log" | sort | uniq -c | paste -sd';' -)
    [[ $rc -eq 124 ]] && errors="TIMED OUT; ${errors}"
    summary+=("sanitize $1|$2 rc=$rc|${errors:-no summary line}|$(( $(date +%s) - start ))s")
    grep -m3 "Invalid\|Race\|Error:" "$log"
  }
  for t in ${SANITIZE_TESTS:-runtime_state_publisher heap_gpu_test stream_gpu_test}; do sanitize_run memcheck "$t"; done
  for t in ${SANITIZE_RACECHECK_TESTS:-stream_gpu_test}; do sanitize_run racecheck "$t"; done
fi

if [[ $compile_times == 1 ]]; then
  echo "== compile times (one compiler per source, $jobs at a time)"
  python3 scripts/compile_times.py "$build" --jobs "$jobs" --timeout 300 --nvcc-phases \
    --json "$logs/compile_times.jsonl" > "$logs/compile_times.log" 2>&1
  sed -n '/^seconds/,$p' "$logs/compile_times.log" | head -12
  summary+=("slowest source|$(sed -n '/^seconds/{n;p}' "$logs/compile_times.log" | awk '{print $1 "s " $3}')|")
fi

if [[ ${python_gpu:-0} == 1 ]]; then
  echo "== Python package on the GPUs (scripts/python_gpu.sh)"
  start=$(date +%s)
  PYTHON_GPU_TIMEOUT=${PYTHON_GPU_TIMEOUT:-150} timeout "$(stage_timeout 420)" \
    bash scripts/python_gpu.sh --out "$logs/python" 2>&1 | tee "$logs/python.log"
  python_rc=${PIPESTATUS[0]}
  verdict=$(cat "$logs/python/summary-line.txt" 2>/dev/null || echo "python|rc=$python_rc, no verdict (python.log)|")
  summary+=("$verdict|$(( $(date +%s) - start ))s")
  cp "$logs/python/bench_vs_torch_symm_mem.md" "$out/" 2>/dev/null
fi

finish
[[ $ctest_rc -eq 0 ]]
