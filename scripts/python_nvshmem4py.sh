#!/usr/bin/env bash
# gshmem's Python package beside NVSHMEM's (nvshmem4py) in one torchrun job
# on a GPU machine without a package registry: installs what nvshmem4py
# needs and the Python that has PyTorch lacks, from the ignored folder
# .nvshmem4py/ (wheels for that Python: nvshmem4py-cu13, cffi, pycparser,
# and cuda-core, cuda-bindings, cuda-pathfinder where it lacks them;
# docs/python.md, "Beside nvshmem4py"). NVSHMEM itself: the nvidia-nvshmem
# wheel that PyTorch depends on, or, where .nvshmem4py/ holds
# nvidia-nvshmem-*-host-headers.tar.xz (that wheel's host library, uid
# bootstrap and headers), that one (GSHMEM_BENCH_NVSHMEM_HOME: nvshmem4py's
# Numba kernels need headers newer than NVSHMEM 3.4's). Then it builds the
# library and the extension (build-python),
# then runs python/benchmarks/bench_vs_nvshmem4py.py with 2 PEs. With one GPU
# the PEs share it (under MPS when the caller started a daemon): the table
# then compares the two packages' host paths on one GPU, not NVLink.
#   scripts/python_nvshmem4py.sh [--out DIR] [--wheels DIR]
# Logs, the environment found (nvshmem4py-env.txt), the table
# (bench_vs_nvshmem4py.md) and summary-line.txt in DIR (default
# ./python-nvshmem4py-logs). Exit status 0 when both packages ran and every
# payload arrived; 3 when nvshmem4py could not run here (the log says why).
set -uo pipefail
cd "$(dirname "$0")/.."
out=$PWD/python-nvshmem4py-logs
wheels=$PWD/.nvshmem4py
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift ;;
    --wheels) wheels=$2; shift ;;
    *) echo "python_nvshmem4py.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out" && out=$(cd "$out" && pwd)
. scripts/torch_python.sh  # the cd above made the repository root current
py=$(torch_python)
limit=${PYTHON_GPU_TIMEOUT:-240}

describe_environment() {
  "$py" - <<'EOF'
import glob, importlib.metadata as md, os, sys, sysconfig
print("python", sys.version.split()[0], sys.executable)
for dist in ("torch", "nvidia-nvshmem-cu13", "nvidia-nvshmem-cu12", "nvshmem4py-cu13", "cuda-core",
             "cuda-bindings", "cuda-pathfinder", "numba", "numba-cuda", "llvmlite", "mpi4py"):
    try:
        print(f"{dist}: {md.version(dist)}")
    except md.PackageNotFoundError:
        print(f"{dist}: none")
site = sysconfig.get_paths()["purelib"]
for pattern in ("nvidia/nvshmem/lib/*", "nvidia/cu13/lib/libnvrtc*", "nvidia/cu13/lib/libnvJitLink*",
                "nvidia/cuda_nvrtc/lib/*", "nvidia/nvjitlink/lib/*"):
    for f in sorted(glob.glob(os.path.join(site, pattern))):
        print(f"file: {os.path.relpath(f, site)} ({os.path.getsize(f) >> 10} KiB)")
EOF
}

echo "== Python: $py"
describe_environment > "$out/nvshmem4py-env.txt" 2>&1
cat "$out/nvshmem4py-env.txt"

# What nvshmem4py needs and this Python lacks, from the wheels folder: into
# the interpreter's own environment (`cuda` is a namespace shared with
# PyTorch's CUDA packages), else into a folder on PYTHONPATH.
site=${TMPDIR:-/tmp}/gshmem-nvshmem4py-site
missing=()
for pair in "cuda.pathfinder:cuda_pathfinder" "cuda.bindings:cuda_bindings" "cuda.core:cuda_core" \
            "nvshmem.core:nvshmem4py_cu13" "pycparser:pycparser" "cffi:cffi"; do
  module=${pair%%:*} wheel=${pair#*:}
  "$py" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$module') is None)" 2>/dev/null && continue
  found=$(ls "$wheels"/"$wheel"-*.whl 2>/dev/null | tail -n 1)
  [[ -n $found ]] && missing+=("$found") || echo "(no $wheel wheel in $wheels for the missing $module)"
done
if (( ${#missing[@]} )); then
  echo "== installing ${missing[*]##*/}"
  if ! "$py" -m pip install -q --no-index --no-deps "${missing[@]}" > "$out/pip.log" 2>&1; then
    "$py" -m pip install -q --no-index --no-deps --target "$site" "${missing[@]}" >> "$out/pip.log" 2>&1 &&
      export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" || cat "$out/pip.log"
  fi
fi

tarball=$(ls "$wheels"/nvidia-nvshmem-*-host-headers.tar.xz 2>/dev/null | tail -n 1)
if [[ -n $tarball ]]; then
  home=${TMPDIR:-/tmp}/$(basename "$tarball" .tar.xz)
  [[ -f $home/nvidia/nvshmem/lib/libnvshmem_host.so.3 ]] || { mkdir -p "$home" && tar xJf "$tarball" -C "$home"; }
  export GSHMEM_BENCH_NVSHMEM_HOME=$home/nvidia/nvshmem
  echo "== NVSHMEM for nvshmem4py: $GSHMEM_BENCH_NVSHMEM_HOME"
fi

build=build-python
if ! build_python_extension "$py" "$build" "$out"; then
  echo "python-nvshmem4py|build FAILED (configure.log, build.log)|" > "$out/summary-line.txt"
  exit 1
fi
export PYTHONPATH="$PWD/$build/python${PYTHONPATH:+:$PYTHONPATH}"
export CUDA_MODULE_LOADING=EAGER
gpus=$("$py" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null || echo 0)
shared=""
if [[ "$gpus" == 1 ]]; then
  export GSHMEM_ALLOW_GPU_SHARING=1
  shared=" (2 PEs sharing one GPU${CUDA_MPS_PIPE_DIRECTORY:+ under MPS})"
  # NVSHMEM supports every routine with several PEs on a GPU only under MPS
  # with the PEs' active thread percentages summing to at most 100 (else
  # its "limited MPG" mode exits the process at the first collective).
  [[ -n ${CUDA_MPS_PIPE_DIRECTORY:-} ]] && export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-50}
fi

echo "== torchrun --nproc-per-node 2 python/benchmarks/bench_vs_nvshmem4py.py$shared"
timeout "$limit" "$py" -m torch.distributed.run --nproc-per-node 2 --master-port $(( 29500 + RANDOM % 2000 )) \
  python/benchmarks/bench_vs_nvshmem4py.py --out "$out" > "$out/bench-vs-nvshmem4py.log" 2>&1
rc=$?
grep -E '^(\||#|- not run|nvshmem4py did not run)' "$out/bench-vs-nvshmem4py.log"
# torchrun exits 1 whatever its workers' status: 3 is the benchmark's "nvshmem4py could not run here".
if [[ $rc -ne 0 ]] && ! grep -q 'did not arrive' "$out/bench-vs-nvshmem4py.log" &&
   grep -qE '^(- not run: nvshmem4py|nvshmem4py did not run)' "$out/bench-vs-nvshmem4py.log"; then
  rc=3
fi
[[ $rc -eq 0 ]] || tail -n 40 "$out/bench-vs-nvshmem4py.log"
verdict=$(case $rc in 0) echo ok ;; 3) echo "nvshmem4py did not run" ;; *) echo "FAILED (rc=$rc)" ;; esac)
versions=$(grep -aoE 'nvshmem4py \(libnvshmem [^)]*\)' "$out/bench-vs-nvshmem4py.log" | head -n 1)
line="python-nvshmem4py ($gpus GPUs$shared)|$verdict|${versions:-nvshmem4py not started}"
echo "$line" > "$out/summary-line.txt"
echo "$line"
exit $rc
