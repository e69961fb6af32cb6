#!/usr/bin/env bash
# Runs the gshmem perftest suite on the GPUs of this machine.
#
#   scripts/bench.sh [--quick] [--build-dir DIR] [--results-dir DIR] [--gpus N] [--no-build] [--no-deps]
#                    [--vs-nvshmem [--nvshmem-home DIR]] [--remote] [--build-only] [--bind-to-none]
#
# Checks what the build needs (scripts/install-deps.sh: installs what is
# missing where it can; --no-deps skips this), builds the perftests if
# needed (build-bench/, Release), finds the local GPUs,
# runs every benchmark under a plain mpirun, as users launch (Open MPI then
# binds each rank to one core at 2 ranks; --bind-to-none launches with
# mpirun --bind-to none instead, as this script did before; machine.txt and
# summary.md's title say which) (point-to-point ones on 2 PEs; fan-in/out
# and barrier on 2, 4 and all GPUs; without --quick also the small
# collectives, gshmem_perf_coll, by default (LL) and with GSHMEM_COLLECTIVE_LL=0),
# and writes results/<UTC timestamp>/:
#   *.jsonl (one JSON object per row), *.log (each binary's table),
#   summary.md (targets, floors, NVSHMEM figures) and PNG plots.
# With $OUT set, summary.md, the plots and a tarball of the whole folder are
# copied there as well (9 files at most).
#
# --vs-nvshmem adds a same-run comparison with NVSHMEM: the NVSHMEM-API
# benchmark (perftest/nvshmem_api, NVSHMEM names only) is built twice, against
# gshmem::nvshmem and against NVSHMEM (nvcc -rdc, NVSHMEM's host and device
# libraries), and both run on the same GPUs in this invocation; summary.md,
# vs_nvshmem.jsonl and vs_nvshmem.png give gshmem / NVSHMEM per row. NVSHMEM
# is taken from --nvshmem-home, $NVSHMEM_HOME, or the nvidia-nvshmem-cu12/13
# Python wheel (site-packages/nvidia/nvshmem); where none is found the
# comparison is skipped, saying so, and the other benchmarks run as usual.
# The NVSHMEM run gets NVSHMEM_BOOTSTRAP=MPI and NVSHMEM_REMOTE_TRANSPORT=none
# unless they are set.
#
# --remote also runs the latency and bandwidth benchmarks with every peer
# remote (GSHMEM_REMOTE_PEERS=all, docs/remote.md): the same device routines
# through the proxy thread and the UCX transport module, on this node
# (UCX_TLS from $REMOTE_UCX_TLS, default self,posix,cma,tcp: host shared
# memory, what UCX has between two processes of one node without a NIC).
# Their rows carry "[remote]" and have no floor (there is no mapped address
# to time loads and stores against); results in latency-remote-np2.* and
# bw-remote-np2.*. Both run a second time under mpirun's default binding
# (one core a rank: what `mpirun -np 2` gives users; the proxy thread then
# leaves that core, docs/remote.md "The proxy under CPU binding"): rows
# "[remote,bound]", results in latency-remote-bound-np2.* and
# bw-remote-bound-np2.*. Where a UCX with CUDA support is at hand
# ($UCX_CUDA_PREFIX, or .ucx-cuda/ beside the tree: scripts/ucx_cuda_prefix.sh),
# they run a third time in RMA mode through it (GPU memory one-sided over
# cuda_ipc, on a cudaMalloc heap: GSHMEM_DISABLE_VMM=1, docs/remote.md):
# rows "[remote,rma]", results in latency-remote-rma-np2.* and
# bw-remote-rma-np2.*. --build-only builds (both builds with --vs-nvshmem)
# and stops before looking for GPUs.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUICK=0
BUILD_DIR="$ROOT/build-bench"
RESULTS_BASE="$ROOT/results"
GPUS=""
DO_BUILD=1
DO_DEPS=1
VS_NVSHMEM=0
REMOTE=0
NVSHMEM_DIR="${NVSHMEM_HOME:-}"
BUILD_ONLY=0
BIND_NONE=0
COMMAND_LINE="scripts/bench.sh $*"   # recorded in machine.txt (docs/performance.md cites it)
while [ $# -gt 0 ]; do
  case "$1" in
    --quick|-q) QUICK=1 ;;
    --build-dir) BUILD_DIR="$2"; shift ;;
    --results-dir) RESULTS_BASE="$2"; shift ;;
    --gpus) GPUS="$2"; shift ;;
    --no-build) DO_BUILD=0 ;;
    --no-deps) DO_DEPS=0 ;;
    --vs-nvshmem) VS_NVSHMEM=1 ;;
    --remote) REMOTE=1 ;;
    --nvshmem-home) NVSHMEM_DIR="$2"; shift ;;
    --build-only) BUILD_ONLY=1 ;;
    --bind-to-none) BIND_NONE=1 ;;
    -h|--help) sed -n '2,$p' "$0" | sed '/^[^#]/,$d' | sed 's/^# \{0,1\}//'; exit 0 ;;  # the header
    *) echo "bench.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 CUDA_MODULE_LOADING=EAGER
export PYTHONUNBUFFERED=1

say() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

BINARIES=(gshmem_perf_latency gshmem_perf_wait gshmem_perf_stream gshmem_perf_barrier
          gshmem_perf_fan gshmem_perf_bw)
[ "$QUICK" = 0 ] && BINARIES+=(gshmem_perf_coll)
[ "$VS_NVSHMEM" = 1 ] && BINARIES+=(gshmem_perf_nvshmem_api)
# The UCX transport module is loaded at init, not linked: build it too.
[ "$REMOTE" = 1 ] && BINARIES+=(gshmem_transport_ucx)

# ---------------------------------------------------------------- build
if [ "$DO_BUILD" = 1 ] && [ "$DO_DEPS" = 1 ]; then
  say "checking build requirements (scripts/install-deps.sh)"
  bash "$ROOT/scripts/install-deps.sh" || { say "a required piece is missing (see above)"; exit 1; }
fi
if ! command -v nvcc > /dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
if [ "$DO_BUILD" = 1 ]; then
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    say "configuring $BUILD_DIR"
    source "$ROOT/scripts/cmake_generator.sh"
    # shellcheck disable=SC2046
    cmake -S "$ROOT" -B "$BUILD_DIR" $(gshmem_generator_args "$BUILD_DIR") -DCMAKE_BUILD_TYPE=Release -DGSHMEM_BUILD_TESTS=OFF \
      > "$BUILD_DIR.configure.log" 2>&1 || { tail -30 "$BUILD_DIR.configure.log"; say "configure failed"; exit 1; }
  fi
  say "building perftests (-j$(nproc))"
  build_start=$(date +%s)
  if ! cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${BINARIES[@]}" > "$BUILD_DIR.build.log" 2>&1; then
    # Build what can be built; a missing binary is reported below.
    say "some targets failed to build (see $BUILD_DIR.build.log); building the rest one by one"
    for b in "${BINARIES[@]}"; do
      cmake --build "$BUILD_DIR" -j"$(nproc)" --target "$b" >> "$BUILD_DIR.build.log" 2>&1 \
        || say "  $b: build failed"
    done
  fi
  say "built in $(( $(date +%s) - build_start )) s"
  grep -E "gshmem perftest: .* API" "$BUILD_DIR.configure.log" 2>/dev/null | sed 's/^-- /  /'
fi
BIN_DIR="$BUILD_DIR/perftest"

# ---------------------------------------------------------------- NVSHMEM
# The NVSHMEM build of the NVSHMEM-API benchmark (--vs-nvshmem).
NV_BIN=""
NV_LIB=""
. "$ROOT/scripts/nvshmem_home.sh"
if [ "$VS_NVSHMEM" = 1 ]; then
  NV_HOME=$(nvshmem_find_home "$NVSHMEM_DIR")
  if [ -z "$NV_HOME" ]; then
    if [ -n "$NVSHMEM_DIR" ]; then
      say "NVSHMEM not found at $NVSHMEM_DIR (no include/nvshmem.h): skipping the comparison with NVSHMEM"
    else
      say "NVSHMEM not found (no --nvshmem-home, no \$NVSHMEM_HOME, no nvidia-nvshmem wheel for $(command -v python3 || echo python3)): skipping the comparison with NVSHMEM (pip install nvidia-nvshmem-cu13, or cu12, to enable it)"
    fi
  else
    NV_LIB="$NV_HOME/lib"
    nvshmem_link_flags "$NV_HOME"
    arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=\([0-9]*\).*/\1/p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null | head -1)
    NV_BIN="$BUILD_DIR/nvshmem_api/nvshmem_api_bench_nvshmem"
    mkdir -p "$(dirname "$NV_BIN")"
    say "building the NVSHMEM-API benchmark against NVSHMEM ($NV_HOME, sm_${arch:-90}, -rdc)"
    if ! nvcc -std=c++17 -O3 -arch=sm_"${arch:-90}" -rdc=true -DNVSHMEM_API_IMPL='"nvshmem"' \
         -I"$NV_HOME/include" -I"$ROOT/perftest" \
         "$ROOT/perftest/nvshmem_api/nvshmem_api_bench.cu" "$ROOT/perftest/harness.cpp" \
         -o "$NV_BIN" "${NVSHMEM_LINK_FLAGS[@]}" \
         > "$BUILD_DIR.nvshmem_api.build.log" 2>&1; then
      tail -20 "$BUILD_DIR.nvshmem_api.build.log"
      say "the NVSHMEM build failed (see $BUILD_DIR.nvshmem_api.build.log): skipping the comparison"
      NV_BIN=""
    fi
  fi
fi
if [ "$BUILD_ONLY" = 1 ]; then
  missing=0
  for b in "${BINARIES[@]}"; do
    [ -x "$BIN_DIR/$b" ] || { say "$b: not built"; missing=$((missing + 1)); }
  done
  [ -n "$NV_BIN" ] && say "NVSHMEM build: $NV_BIN"
  say "built; not running (--build-only)"
  [ $missing -eq 0 ]
  exit
fi

# ---------------------------------------------------------------- GPUs
if [ -z "$GPUS" ]; then
  if command -v nvidia-smi > /dev/null; then
    GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  else
    GPUS=0
  fi
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    IFS=',' read -ra visible <<< "$CUDA_VISIBLE_DEVICES"
    [ "${#visible[@]}" -lt "$GPUS" ] && GPUS=${#visible[@]}
  fi
fi
if [ "$GPUS" -lt 2 ]; then
  say "found $GPUS GPU(s); the suite needs at least 2 (one per PE)"
  exit 1
fi
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
say "found $GPUS GPU(s): ${GPU_NAME:-unknown}"

# ---------------------------------------------------------------- plan
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RES="$RESULTS_BASE/$STAMP"
mkdir -p "$RES"
if [ "$QUICK" = 1 ]; then MODE=(--quick); LIMIT=150; else MODE=(); LIMIT=900; fi

# Collective benchmarks run on 2, 4 and all GPUs; point-to-point ones on 2.
PE_COUNTS=(2)
[ "$GPUS" -ge 4 ] && PE_COUNTS+=(4)
[ "$GPUS" -gt 4 ] && PE_COUNTS+=("$GPUS")
STEPS=()
for b in gshmem_perf_latency gshmem_perf_wait gshmem_perf_stream gshmem_perf_bw; do STEPS+=("$b:2"); done
for b in gshmem_perf_barrier gshmem_perf_fan; do
  for np in "${PE_COUNTS[@]}"; do STEPS+=("$b:$np"); done
done
# The small collectives both ways (not with --quick): the LL protocol (the
# default; rows named gshmem_perf_coll_ll), and team syncs around the copy
# (GSHMEM_COLLECTIVE_LL=0; rows named gshmem_perf_coll).
if [ "$QUICK" = 0 ]; then
  for np in "${PE_COUNTS[@]}"; do STEPS+=("gshmem_perf_coll:$np" "gshmem_perf_coll:$np:two_sync"); done
fi
[ "$REMOTE" = 1 ] && STEPS+=("gshmem_perf_latency:2:remote" "gshmem_perf_bw:2:remote"
                             "gshmem_perf_latency:2:remote-bound" "gshmem_perf_bw:2:remote-bound")
UCX_CUDA=${UCX_CUDA_PREFIX:-}
[ -z "$UCX_CUDA" ] && [ -f "$ROOT/.ucx-cuda/lib/ucx/libuct_cuda.so.0" ] && UCX_CUDA=$ROOT/.ucx-cuda
[ "$REMOTE" = 1 ] && [ -n "$UCX_CUDA" ] && STEPS+=("gshmem_perf_latency:2:remote-rma" "gshmem_perf_bw:2:remote-rma")

# As users launch: a plain mpirun (Open MPI's own binding, one core a rank at
# 2 ranks, reported in the log); --bind-to-none for mpirun --bind-to none.
# The two remote steps name their launch, whatever the default: "remote"
# unbound, "remote-bound" bound, so their rows stay the contrast between the
# bindings (docs/remote.md).
MPIRUN_BOUND=(env OMPI_MCA_rmaps_base_oversubscribe=0 mpirun --report-bindings -x CUDA_MODULE_LOADING
              -x NCCL_NVLS_ENABLE)
MPIRUN_UNBOUND=(mpirun --oversubscribe --bind-to none -x CUDA_MODULE_LOADING -x NCCL_NVLS_ENABLE)
if [ "$BIND_NONE" = 1 ]; then
  MPIRUN=("${MPIRUN_UNBOUND[@]}") LAUNCH_NOTE="mpirun --bind-to none"
else
  MPIRUN=("${MPIRUN_BOUND[@]}") LAUNCH_NOTE="plain mpirun"
fi
LAUNCH=("${MPIRUN[@]}")
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "host: $(hostname)"
  echo "gpus: $GPUS x ${GPU_NAME:-unknown}"
  echo "mode: $([ "$QUICK" = 1 ] && echo quick || echo full)"
  echo "launch: $LAUNCH_NOTE"
  echo "commit: $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "command: $COMMAND_LINE"
  nvidia-smi topo -m 2>/dev/null | head -12
} > "$RES/machine.txt"

# ---------------------------------------------------------------- run
FAILED=0
# run_binary LABEL TAG NP BIN [mpirun arguments...]: one benchmark binary
# under mpirun, results in $RES/TAG.jsonl and its log in $RES/TAG.log; says
# how it went and counts a failure (or a missing binary) in FAILED.
run_binary() {
  local label=$1 tag=$2 np=$3 bin=$4
  shift 4
  if [ ! -x "$bin" ]; then
    say "$label: SKIPPED (not built)"
    FAILED=$((FAILED + 1))
    return
  fi
  local start rc secs rows why
  start=$(date +%s)
  say "$label ..."
  timeout -k 15 "$LIMIT" "${LAUNCH[@]}" "$@" -np "$np" "$bin" "${MODE[@]}" \
    --json "$RES/$tag.jsonl" > "$RES/$tag.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  rows=$(cat "$RES/$tag.jsonl" 2>/dev/null | wc -l)
  if [ $rc -eq 0 ]; then
    say "$label: ok, $rows rows, ${secs}s"
  else
    [ $rc -eq 124 ] && why="timed out after ${LIMIT}s" || why="exit status $rc"
    say "$label: FAILED ($why), $rows rows, ${secs}s; last lines:"
    tail -5 "$RES/$tag.log" | sed 's/^/    /'
    FAILED=$((FAILED + 1))
  fi
}

total=${#STEPS[@]}
k=0
for step in "${STEPS[@]}"; do
  k=$((k + 1))
  IFS=: read -r b np variant <<< "$step"
  if [ "$variant" = remote ]; then
    LAUNCH=("${MPIRUN_UNBOUND[@]}")
    run_binary "[$k/$total] $b np=$np, every peer remote, mpirun --bind-to none" "${b#gshmem_perf_}-remote-np$np" "$np" "$BIN_DIR/$b" \
      -x GSHMEM_REMOTE_PEERS=all -x "UCX_TLS=${REMOTE_UCX_TLS:-self,posix,cma,tcp}" -x UCX_WARN_UNUSED_ENV_VARS=n
    LAUNCH=("${MPIRUN[@]}")
  elif [ "$variant" = remote-bound ]; then
    tag="${b#gshmem_perf_}-remote-bound-np$np"
    LAUNCH=("${MPIRUN_BOUND[@]}")
    run_binary "[$k/$total] $b np=$np, every peer remote, mpirun's default binding" "$tag" "$np" "$BIN_DIR/$b" \
      -x GSHMEM_REMOTE_PEERS=all -x "UCX_TLS=${REMOTE_UCX_TLS:-self,posix,cma,tcp}" -x UCX_WARN_UNUSED_ENV_VARS=n
    LAUNCH=("${MPIRUN[@]}")
    [ -f "$RES/$tag.jsonl" ] && sed -i 's/\[remote\]/[remote,bound]/g' "$RES/$tag.jsonl"
  elif [ "$variant" = remote-rma ]; then
    tag="${b#gshmem_perf_}-remote-rma-np$np"
    run_binary "[$k/$total] $b np=$np, every peer remote, RMA mode through $UCX_CUDA" "$tag" "$np" "$BIN_DIR/$b" \
      -x GSHMEM_REMOTE_PEERS=all -x GSHMEM_DISABLE_VMM=1 -x "LD_LIBRARY_PATH=$UCX_CUDA/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      -x UCX_TLS=self,posix,cma,tcp,cuda_copy,cuda_ipc -x UCX_WARN_UNUSED_ENV_VARS=n
    [ -f "$RES/$tag.jsonl" ] && sed -i 's/\[remote\]/[remote,rma]/g' "$RES/$tag.jsonl"
  elif [ "$variant" = two_sync ]; then
    run_binary "[$k/$total] $b np=$np, GSHMEM_COLLECTIVE_LL=0" "${b#gshmem_perf_}-two-sync-np$np" "$np" "$BIN_DIR/$b" \
      -x GSHMEM_COLLECTIVE_LL=0
  else
    run_binary "[$k/$total] $b np=$np" "${b#gshmem_perf_}-np$np" "$np" "$BIN_DIR/$b"
  fi
done

# ---------------------------------------------------------------- vs NVSHMEM
# The same source, built against gshmem and against NVSHMEM, one after the
# other on the same GPUs (point-to-point: 2 PEs).
if [ "$VS_NVSHMEM" = 1 ] && [ -n "$NV_BIN" ]; then
  run_binary "NVSHMEM-API benchmark, gshmem build, np=2" nvshmem_api-gshmem-np2 2 \
    "$BIN_DIR/gshmem_perf_nvshmem_api"
  run_binary "NVSHMEM-API benchmark, nvshmem build, np=2" nvshmem_api-nvshmem-np2 2 "$NV_BIN" \
    $(nvshmem_run_environment | sed 's/^/-x /') \
    -x "LD_LIBRARY_PATH=$NV_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# ---------------------------------------------------------------- report
TITLE="gshmem perftests, $GPUS x ${GPU_NAME:-GPU}, $LAUNCH_NOTE, $(date -u '+%Y-%m-%d %H:%M UTC')$([ "$QUICK" = 1 ] && echo ' (quick)')"
python3 "$ROOT/scripts/summarize.py" "$RES" --title "$TITLE" || say "summary failed"
python3 "$ROOT/scripts/plot_results.py" "$RES"
case $? in
  0) ;;
  77) say "matplotlib missing: no plots (pip install matplotlib)" ;;
  *) say "plotting failed" ;;
esac
[ -f "$RES/summary.md" ] && sed -n '1,20p' "$RES/summary.md"
[ -f "$RES/summary.md" ] && sed -n '/^## gshmem vs NVSHMEM/,$p' "$RES/summary.md"

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  tar -C "$RESULTS_BASE" -czf "$OUT/results-$STAMP.tar.gz" "$STAMP"
  [ -f "$RES/summary.md" ] && cp "$RES/summary.md" "$OUT/"
  [ -f "$RES/vs_nvshmem.jsonl" ] && cp "$RES/vs_nvshmem.jsonl" "$OUT/"
  n=0
  # The comparison plot first, where there is one.
  for png in $(ls "$RES"/vs_nvshmem.png 2>/dev/null) $(ls "$RES"/*.png 2>/dev/null | grep -v '/vs_nvshmem.png$'); do
    [ -f "$png" ] || continue
    [ $n -ge 6 ] && break
    cp "$png" "$OUT/"
    n=$((n + 1))
  done
  say "copied summary, $n plot(s) and the tarball to \$OUT"
fi
say "results in $RES ($FAILED step(s) failed)"
[ $FAILED -eq 0 ]
