#!/usr/bin/env bash
# The remote path's one-way latency under the CPU bindings users get
# (docs/remote.md, "The proxy under CPU binding"): gshmem_perf_latency with
# every peer remote (GSHMEM_REMOTE_PEERS=all, 2 PEs on this node), few
# iterations, under each launch below; prints a markdown table binding ->
# one-way latency (us) of the one-word exchanges and an 8-byte put_signal.
#
#   scripts/remote_binding.sh [--build-dir DIR] [--iters N] [--only REGEX]
#
#   default          mpirun -np 2 (Open MPI's binding: one core a rank)
#   none             mpirun -np 2 --bind-to none
#   pe2              mpirun -np 2 --map-by slot:PE=2 (two cores a rank)
#   taskset0         taskset -c 0 mpirun -np 2 --bind-to none (both ranks on CPU 0)
#   inherit          mpirun -np 2, GSHMEM_PROXY_CPUS=inherit (the proxy on its rank's core, as before)
#   shared-yield     mpirun -np 2, the proxy forced onto its rank's core (GSHMEM_PROXY_CPUS=
#   shared-blocking    that core: what a cpuset of one CPU leaves), GSHMEM_PROXY_SHARED_SYNC=
#   shared-keep        yield, blocking or keep
#
# Builds gshmem_perf_latency and the UCX module in DIR (default build-bench,
# Release) when missing. Each run's log and JSON lines go to
# results/remote-binding-<UTC timestamp>/; with $OUT set the table is copied
# there too (remote_binding.md). srun is not used: where Slurm launches,
# `srun --cpu-bind=cores` binds like the default row, `--cpu-bind=none` like
# none, `--cpus-per-task=2` like pe2.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="$ROOT/build-bench"
ITERS=200
ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD_DIR="$2"; shift ;;
    --iters) ITERS="$2"; shift ;;
    --only) ONLY="$2"; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "remote_binding.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
say() { echo "[remote_binding] $*"; }

if ! command -v nvcc > /dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
BIN="$BUILD_DIR/perftest/gshmem_perf_latency"
if [ ! -x "$BIN" ]; then
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    say "configuring $BUILD_DIR"
    cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DGSHMEM_BUILD_TESTS=OFF \
      > "$BUILD_DIR.configure.log" 2>&1 || { tail -30 "$BUILD_DIR.configure.log"; exit 1; }
  fi
  say "building gshmem_perf_latency and the UCX module"
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target gshmem_perf_latency gshmem_transport_ucx \
    > "$BUILD_DIR.build.log" 2>&1 || { tail -30 "$BUILD_DIR.build.log"; exit 1; }
fi
[ -x "$BIN" ] || { say "no $BIN"; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The binding a user gets: no oversubscription allowed behind mpirun's back.
export OMPI_MCA_rmaps_base_oversubscribe=0
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0
RES="$ROOT/results/remote-binding-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$RES"
# One word and one 8-byte put_signal from one thread; few iterations, since
# a badly placed proxy costs milliseconds a round trip.
ARGS=(-n "$ITERS" -w 20 -r 3 -b 8:8:2 -t thread)
REMOTE=(-x GSHMEM_REMOTE_PEERS=all -x "UCX_TLS=${REMOTE_UCX_TLS:-self,posix,cma,tcp}" -x UCX_WARN_UNUSED_ENV_VARS=n
        -x GSHMEM_DEBUG=INFO -x CUDA_MODULE_LOADING -x NCCL_NVLS_ENABLE)
# The proxy on the rank's own CPUs: what a cpuset of one CPU a rank leaves.
OWN_CORE='export GSHMEM_PROXY_CPUS=$(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status); exec "$@"'

CASES=(default none pe2 taskset0 inherit shared-yield shared-blocking shared-keep)
declare -A LABEL=(
  [default]="mpirun -np 2 (default: one core a rank)"
  [none]="mpirun -np 2 --bind-to none"
  [pe2]="mpirun -np 2 --map-by slot:PE=2"
  [taskset0]="taskset -c 0 mpirun -np 2 --bind-to none"
  [inherit]="mpirun -np 2, GSHMEM_PROXY_CPUS=inherit (as before)"
  [shared-yield]="mpirun -np 2, proxy on the rank's core, SHARED_SYNC=yield"
  [shared-blocking]="mpirun -np 2, proxy on the rank's core, SHARED_SYNC=blocking"
  [shared-keep]="mpirun -np 2, proxy on the rank's core, SHARED_SYNC=keep"
)
run_case() {
  local c=$1
  case "$c" in
    default) mpirun --report-bindings -np 2 "${REMOTE[@]}" "$BIN" "${ARGS[@]}" --json "$RES/$c.jsonl" ;;
    none) mpirun --report-bindings --bind-to none -np 2 "${REMOTE[@]}" "$BIN" "${ARGS[@]}" --json "$RES/$c.jsonl" ;;
    pe2) mpirun --report-bindings --map-by slot:PE=2 -np 2 "${REMOTE[@]}" "$BIN" "${ARGS[@]}" --json "$RES/$c.jsonl" ;;
    taskset0) taskset -c 0 mpirun --report-bindings --bind-to none -np 2 "${REMOTE[@]}" "$BIN" "${ARGS[@]}" \
                --json "$RES/$c.jsonl" ;;
    inherit) mpirun --report-bindings -np 2 "${REMOTE[@]}" -x GSHMEM_PROXY_CPUS=inherit "$BIN" "${ARGS[@]}" \
               --json "$RES/$c.jsonl" ;;
    shared-*) mpirun --report-bindings -np 2 "${REMOTE[@]}" -x "GSHMEM_PROXY_SHARED_SYNC=${c#shared-}" \
                bash -c "$OWN_CORE" _ "$BIN" "${ARGS[@]}" --json "$RES/$c.jsonl" ;;
  esac
}

for c in "${CASES[@]}"; do
  [ -n "$ONLY" ] && ! [[ "$c" =~ $ONLY ]] && continue
  say "$c: ${LABEL[$c]} ..."
  start=$(date +%s)
  timeout -k 15 300 bash -c "$(declare -f run_case); $(declare -p BIN ARGS REMOTE RES OWN_CORE); run_case $c" \
    > "$RES/$c.log" 2>&1
  rc=$?
  say "$c: exit status $rc, $(( $(date +%s) - start ))s$(grep -m1 -o 'proxy thread on CPUs [^(]*' "$RES/$c.log" | sed 's/^/; /')"
  grep -E "shares CPU|MCW rank" "$RES/$c.log" | head -4 | sed 's/^/    /'
done

python3 - "$RES" "${CASES[@]}" > "$RES/remote_binding.md" <<'EOF'
import json, os, sys
res, cases = sys.argv[1], sys.argv[2:]
labels = {
    "default": "mpirun -np 2 (default: one core a rank)",
    "none": "mpirun -np 2 --bind-to none",
    "pe2": "mpirun -np 2 --map-by slot:PE=2",
    "taskset0": "taskset -c 0 mpirun -np 2 --bind-to none",
    "inherit": "mpirun -np 2, GSHMEM_PROXY_CPUS=inherit (as before)",
    "shared-yield": "mpirun -np 2, proxy on the rank's core, GSHMEM_PROXY_SHARED_SYNC=yield",
    "shared-blocking": "mpirun -np 2, proxy on the rank's core, GSHMEM_PROXY_SHARED_SYNC=blocking",
    "shared-keep": "mpirun -np 2, proxy on the rank's core, GSHMEM_PROXY_SHARED_SYNC=keep",
}
cols = [("uint64_p+wait_until[remote]", 8, "p + wait_until"),
        ("signal_op+signal_wait_until[remote]", 8, "signal_op + signal_wait_until"),
        ("putmem_signal[remote]", 8, "putmem_signal 8 B")]
print("| binding | " + " | ".join(c[2] + " one-way (us)" for c in cols) + " | proxy CPUs (PE 0) |")
print("|---|" + "---|" * (len(cols) + 1))
for c in cases:
    path = os.path.join(res, c + ".jsonl")
    if not os.path.exists(path):
        continue
    rows = [json.loads(l) for l in open(path) if l.strip()]
    cells = []
    for name, size, _ in cols:
        r = [x for x in rows if x["name"] == name and x.get("size") == size and x["metric"] == "one_way"
             and x.get("threads", 1) == 1]
        cells.append(f"{r[0]['value']:.2f}" if r else "-")
    where = "-"
    log = os.path.join(res, c + ".log")
    if os.path.exists(log):
        for line in open(log, errors="replace"):
            if "PE 0" in line and "proxy thread on CPUs" in line:
                where = line.split("proxy thread on CPUs", 1)[1].split("(", 1)[0].strip()
                break
    print(f"| {labels.get(c, c)} | " + " | ".join(cells) + f" | {where} |")
EOF
echo
cat "$RES/remote_binding.md"
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && cp "$RES/remote_binding.md" "$OUT/" && tar -C "$RES/.." -czf "$OUT/remote-binding-logs.tar.gz" "$(basename "$RES")"
say "results in $RES"
