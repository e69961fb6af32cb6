#!/usr/bin/env bash
# gshmem.tile (cuTile) on a GPU machine without a package registry: installs
# cuda-tile and tileiras from the ignored folder .whl/ (docs/python.md,
# "cuTile": the cuda-tile wheel for this Python and
# tileiras-13.5.37-x86_64.tar.xz; gshmem_triton.ll there too, for the Triton
# column), builds the library and the extension for the Python that has
# PyTorch (as scripts/python_gpu.sh, in build-python), then under torchrun:
# python/tests/gpu/tile_checks.py with 2 PEs and, with 4 or more GPUs, with 4
# (with TILE_SHARE_GPUS=1, on fewer GPUs shared: correctness only); then
# python/benchmarks/bench_tile_vs_triton_cuda.py with 2 PEs on 2 GPUs.
#   scripts/python_tile_gpu.sh [--out DIR] [--no-bench]
# Logs, the table (tile_vs_triton_cuda.md) and summary-line.txt in DIR
# (default ./python-tile-logs). Exit status 0 only when every check passed.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$PWD/python-tile-logs
bench=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift ;;
    --no-bench) bench=0 ;;
    *) echo "python_tile_gpu.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out" && out=$(cd "$out" && pwd)
. scripts/torch_python.sh  # the cd above made the repository root current
py=$(torch_python)
limit=${PYTHON_GPU_TIMEOUT:-200}
failures=0
verdicts=()

# cuTile and its compiler, from .whl/ where this Python lacks them: into the
# interpreter's own environment (cuda.tile is a portion of the `cuda`
# namespace, which a regular `cuda` package elsewhere on the path would
# hide), else into a folder on PYTHONPATH.
site=${TMPDIR:-/tmp}/gshmem-tile-site
if ! "$py" -c 'import cuda.tile' >/dev/null 2>&1; then
  if ! "$py" -m pip install -q --no-index --no-deps .whl/cuda_tile-*.whl > "$out/pip.log" 2>&1 ||
     ! "$py" -c 'import cuda.tile' >/dev/null 2>&1; then
    "$py" -m pip install -q --no-index --no-deps --target "$site" .whl/cuda_tile-*.whl >> "$out/pip.log" 2>&1 ||
      { cat "$out/pip.log"; echo "python-tile|cuda-tile wheel not installed (.whl/)|" > "$out/summary-line.txt"; exit 1; }
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
  fi
fi
if ! command -v tileiras >/dev/null 2>&1 && ls .whl/tileiras-*-x86_64.tar.xz >/dev/null 2>&1; then
  tarball=$(ls .whl/tileiras-*-x86_64.tar.xz | tail -n 1)
  dir=${TMPDIR:-/tmp}/$(basename "$tarball" -x86_64.tar.xz)
  [[ -x "$dir/bin/tileiras" ]] || tar xJf "$tarball" -C "${TMPDIR:-/tmp}"
  export PATH="$dir/bin:$PATH"
fi
# tileiras uses the libnvvm beside it (../lib); CUDA_HOME could point it at the toolkit's.
echo "== $("$py" -c 'import cuda.tile as ct; print("cuda.tile", ct.__version__)' 2>&1), tileiras: $(command -v tileiras || echo none)"

[[ -f .triton/gshmem_triton.ll ]] || { [[ -f .whl/gshmem_triton.ll ]] && mkdir -p .triton && cp .whl/gshmem_triton.ll .triton/; }
build=build-python
if ! build_python_extension "$py" "$build" "$out"; then
  echo "python-tile|build FAILED (configure.log, build.log)|" > "$out/summary-line.txt"
  exit 1
fi
export PYTHONPATH="$PWD/$build/python${PYTHONPATH:+:$PYTHONPATH}"
export CUDA_MODULE_LOADING=EAGER
unset CUDA_HOME CUDA_PATH
gpus=$("$py" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null || echo 0)

# Fewer GPUs than PEs: with TILE_SHARE_GPUS=1 the PEs share them
# (GSHMEM_ALLOW_GPU_SHARING=1; under MPS when the caller started a daemon):
# the checks' verdicts hold, their timings say nothing of NVLink, and the
# benchmark is not run.
share=${TILE_SHARE_GPUS:-0}
port=$(( 29500 + RANDOM % 2000 ))
for n in 2 4; do
  shared=""
  if (( gpus < n )); then
    if [[ $share != 1 ]] || (( gpus < 1 )); then
      verdicts+=("$n PEs: $gpus GPUs, not run"); continue
    fi
    shared=" (PEs sharing $gpus GPU(s): correctness only)"
  fi
  port=$(( port + 7 ))
  echo "== torchrun --nproc-per-node $n python/tests/gpu/tile_checks.py"
  GSHMEM_ALLOW_GPU_SHARING=$([[ -n $shared ]] && echo 1 || echo "${GSHMEM_ALLOW_GPU_SHARING:-0}") \
    timeout "$limit" "$py" -m torch.distributed.run --nproc-per-node "$n" --master-port "$port" \
    python/tests/gpu/tile_checks.py > "$out/tile-checks-$n.log" 2>&1
  rc=$?
  grep -E '\] (PASS|FAIL) ' "$out/tile-checks-$n.log"
  passes=$(grep -c '\] PASS ' "$out/tile-checks-$n.log")
  fails=$(grep -c '\] FAIL ' "$out/tile-checks-$n.log")
  if [[ $rc -ne 0 || $fails -gt 0 ]]; then failures=$((failures + 1)); tail -n 40 "$out/tile-checks-$n.log"; fi
  verdicts+=("$n PEs$shared rc=$rc: $passes PASS, $fails FAIL lines")
done

if [[ $bench == 1 ]] && (( gpus >= 2 )); then
  port=$(( port + 7 ))
  echo "== cuTile beside Triton and CUDA C: bench_tile_vs_triton_cuda.py, 2 PEs"
  timeout "$limit" "$py" -m torch.distributed.run --nproc-per-node 2 --master-port "$port" \
    python/benchmarks/bench_tile_vs_triton_cuda.py --out "$out" > "$out/bench-tile.log" 2>&1
  rc=$?
  grep -E '^(\||#)' "$out/bench-tile.log"
  [[ $rc -eq 0 ]] || { failures=$((failures + 1)); tail -n 40 "$out/bench-tile.log"; }
  verdicts+=("bench rc=$rc")
fi

line="python-tile ($gpus GPUs)|$([[ $failures -eq 0 ]] && echo ok || echo "$failures FAILED")|$(IFS=';'; echo "${verdicts[*]}")"
echo "$line" > "$out/summary-line.txt"
echo "$line"
[[ $failures -eq 0 ]]
