#!/usr/bin/env bash
# Runs the gshmem perftest suite on the GPUs of this machine.
#
#   scripts/bench.sh [--quick] [--build-dir DIR] [--results-dir DIR] [--gpus N] [--no-build] [--no-deps]
#
# Checks what the build needs (scripts/install-deps.sh: installs what is
# missing where it can; --no-deps skips this), builds the perftests if
# needed (build-bench/, Release), finds the local GPUs,
# runs every benchmark under mpirun (point-to-point ones on 2 PEs; fan-in/out
# and barrier on 2, 4 and all GPUs), and writes results/<UTC timestamp>/:
#   *.jsonl (one JSON object per row), *.log (each binary's table),
#   summary.md (targets, floors, NVSHMEM figures) and PNG plots.
# With $OUT set, summary.md, the plots and a tarball of the whole folder are
# copied there as well (8 files at most).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUICK=0
BUILD_DIR="$ROOT/build-bench"
RESULTS_BASE="$ROOT/results"
GPUS=""
DO_BUILD=1
DO_DEPS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick|-q) QUICK=1 ;;
    --build-dir) BUILD_DIR="$2"; shift ;;
    --results-dir) RESULTS_BASE="$2"; shift ;;
    --gpus) GPUS="$2"; shift ;;
    --no-build) DO_BUILD=0 ;;
    --no-deps) DO_DEPS=0 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
    cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DGSHMEM_BUILD_TESTS=OFF \
      > "$BUILD_DIR.configure.log" 2>&1 || { tail -30 "$BUILD_DIR.configure.log"; say "configure failed"; exit 1; }
  fi
  say "building perftests (-j$(nproc))"
  if ! cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${BINARIES[@]}" > "$BUILD_DIR.build.log" 2>&1; then
    # Build what can be built; a missing binary is reported below.
    say "some targets failed to build (see $BUILD_DIR.build.log); building the rest one by one"
    for b in "${BINARIES[@]}"; do
      cmake --build "$BUILD_DIR" -j"$(nproc)" --target "$b" >> "$BUILD_DIR.build.log" 2>&1 \
        || say "  $b: build failed"
    done
  fi
  grep -E "gshmem perftest: .* API" "$BUILD_DIR.configure.log" 2>/dev/null | sed 's/^-- /  /'
fi
BIN_DIR="$BUILD_DIR/perftest"

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

MPIRUN=(mpirun --oversubscribe --bind-to none -x CUDA_MODULE_LOADING -x NCCL_NVLS_ENABLE)
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "host: $(hostname)"
  echo "gpus: $GPUS x ${GPU_NAME:-unknown}"
  echo "mode: $([ "$QUICK" = 1 ] && echo quick || echo full)"
  echo "commit: $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
  nvidia-smi topo -m 2>/dev/null | head -12
} > "$RES/machine.txt"

# ---------------------------------------------------------------- run
FAILED=0
total=${#STEPS[@]}
k=0
for step in "${STEPS[@]}"; do
  k=$((k + 1))
  b=${step%%:*}
  np=${step##*:}
  tag="${b#gshmem_perf_}-np$np"
  if [ ! -x "$BIN_DIR/$b" ]; then
    say "[$k/$total] $b np=$np: SKIPPED (not built)"
    FAILED=$((FAILED + 1))
    continue
  fi
  start=$(date +%s)
  say "[$k/$total] $b np=$np ..."
  timeout -k 15 "$LIMIT" "${MPIRUN[@]}" -np "$np" "$BIN_DIR/$b" "${MODE[@]}" \
    --json "$RES/$tag.jsonl" > "$RES/$tag.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  rows=$(cat "$RES/$tag.jsonl" 2>/dev/null | wc -l)
  if [ $rc -eq 0 ]; then
    say "[$k/$total] $b np=$np: ok, $rows rows, ${secs}s"
  else
    [ $rc -eq 124 ] && why="timed out after ${LIMIT}s" || why="exit status $rc"
    say "[$k/$total] $b np=$np: FAILED ($why), $rows rows, ${secs}s; last lines:"
    tail -5 "$RES/$tag.log" | sed 's/^/    /'
    FAILED=$((FAILED + 1))
  fi
done

# ---------------------------------------------------------------- report
TITLE="gshmem perftests, $GPUS x ${GPU_NAME:-GPU}, $(date -u '+%Y-%m-%d %H:%M UTC')$([ "$QUICK" = 1 ] && echo ' (quick)')"
python3 "$ROOT/scripts/summarize.py" "$RES" --title "$TITLE" || say "summary failed"
python3 "$ROOT/scripts/plot_results.py" "$RES"
case $? in
  0) ;;
  77) say "matplotlib missing: no plots (pip install matplotlib)" ;;
  *) say "plotting failed" ;;
esac
[ -f "$RES/summary.md" ] && sed -n '1,20p' "$RES/summary.md"

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  tar -C "$RESULTS_BASE" -czf "$OUT/results-$STAMP.tar.gz" "$STAMP"
  [ -f "$RES/summary.md" ] && cp "$RES/summary.md" "$OUT/"
  n=0
  for png in "$RES"/*.png; do
    [ -f "$png" ] || continue
    [ $n -ge 6 ] && break
    cp "$png" "$OUT/"
    n=$((n + 1))
  done
  say "copied summary, $n plot(s) and the tarball to \$OUT"
fi
say "results in $RES ($FAILED step(s) failed)"
[ $FAILED -eq 0 ]
