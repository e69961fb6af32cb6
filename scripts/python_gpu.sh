#!/usr/bin/env bash
# The Python package on a GPU machine: builds its extension for the Python
# that has PyTorch (no package registry needed: the CMake build,
# GSHMEM_BUILD_PYTHON, with nanobind from that Python); where that is the
# complete build-device and the Python has scikit-build-core, the package is
# then installed as a user installs it, `pip install ./python` against that
# build's install (scripts/python_pip_install.sh), and that copy is tested.
# Then under torchrun
# with 2 PEs: the GPU checks (python/tests/gpu/torchrun_checks.py), the
# dead-peer jobs, the Triton checks (python/tests/gpu/triton_checks.py,
# where Triton is installed), the ring example, and the benchmarks beside PyTorch's
# symmetric memory (python/benchmarks/bench_vs_torch_symm_mem.py, CUDA
# graphs; bench_eager_loop.py, loops issued from Python; with Triton,
# bench_triton_vs_cuda.py), then the Python
# layer's host time per call (bench_host_overhead.py, no CUDA work).
# With one GPU the 2 PEs share it (GSHMEM_ALLOW_GPU_SHARING=1; under MPS when
# the caller started a daemon, as device_run.sh does with SHARE_GPUS_MPS=1).
#   scripts/python_gpu.sh [--out DIR] [--build-dir DIR] [--no-bench]
#   --out        where logs, the benchmark's table/JSON lines/plot and
#                summary-line.txt go (default ./python-gpu-logs)
#   --build-dir  a build whose python/gshmem is importable by that Python
#                (default: build-device if it is, else one is configured in
#                build-python: library + extension only)
#   GSHMEM_PYTHON  the interpreter (default: the first that imports torch of
#                  python3 on PATH and the virtual environments /opt/*/.venv)
#   PYTHON_GPU_TIMEOUT  seconds per torchrun job (default 240)
# Exit status 0 only when every check passed. Also called by
# scripts/device_run.sh --python.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$PWD/python-gpu-logs
build=""
bench=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift ;;
    --build-dir) build=$2; shift ;;
    --no-bench) bench=0 ;;
    *) echo "python_gpu.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out" && out=$(cd "$out" && pwd)
. scripts/torch_python.sh  # the cd above made the repository root current
py=$(torch_python)
limit=${PYTHON_GPU_TIMEOUT:-240}
failures=0
verdicts=()

echo "== Python: $py"
"$py" - <<'EOF' 2>&1 | tee "$out/python-env.txt"
import importlib.util, sys
print("python", sys.version.split()[0])
for name in ("torch", "nanobind", "scikit_build_core", "pytest", "matplotlib"):
    found = importlib.util.find_spec(name) is not None
    version = ""
    if found:
        try:
            version = getattr(__import__(name), "__version__", "")
        except Exception as e:  # noqa: BLE001
            version = f"(import failed: {e})"
    print(f"{name}: {'yes ' + version if found else 'no'}")
EOF
grep -q '^scikit_build_core: yes' "$out/python-env.txt" ||
  echo "(no scikit-build-core: pip install ./python is not possible here; the CMake-built extension is used)"

importable() { PYTHONPATH="$1/python" "$py" -c 'import gshmem' >/dev/null 2>&1; }
if [[ -z "$build" ]]; then
  if [[ -d build-device/python/gshmem ]] && importable build-device; then
    build=build-device
  else
    build=build-python
    if ! build_python_extension "$py" "$build" "$out"; then
      echo "python|build FAILED (configure.log, build.log)|" > "$out/summary-line.txt"
      exit 1
    fi
  fi
fi
build=$(cd "$build" && pwd)
if ! importable "$build"; then
  PYTHONPATH="$build/python" "$py" -c 'import gshmem'
  echo "python|gshmem not importable from $build/python|" > "$out/summary-line.txt"
  exit 1
fi
# As a user installs it: `pip install ./python` against this build's install
# (scripts/python_pip_install.sh; no registry needed), where the build is
# complete and scikit-build-core is there; else the build tree's package.
package_dir="$build/python"
how="the build tree's package ($build/python)"
if [[ "$build" == */build-device ]] && grep -q '^scikit_build_core: yes' "$out/python-env.txt"; then
  echo "== pip install ./python (against $build's install)"
  if site=$(bash scripts/python_pip_install.sh "$build" "${TMPDIR:-/tmp}/gshmem-python-pip" "$py" | tail -n 1) &&
     [[ -d "$site/gshmem" ]]; then
    package_dir=$site
    how="pip install ./python ($site)"
  else
    echo "(pip install ./python failed; the build tree's package is used)"
  fi
fi
echo "== the package: $how"
verdicts+=("package: ${how%% (*}")
export PYTHONPATH="$package_dir${PYTHONPATH:+:$PYTHONPATH}"
export CUDA_MODULE_LOADING=EAGER
gpus=$("$py" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null || echo 0)
if [[ "$gpus" == 1 ]]; then
  export GSHMEM_ALLOW_GPU_SHARING=1
  echo "== one GPU: the 2 PEs share it (${CUDA_MPS_PIPE_DIRECTORY:+under MPS}${CUDA_MPS_PIPE_DIRECTORY:-time-sliced, no MPS daemon})"
fi

port=$(( 29500 + RANDOM % 2000 ))
run_2pe() {  # log_name args...: a 2-PE torchrun job, bounded in time
  local name=$1; shift
  port=$(( port + 7 ))
  timeout "$limit" "$py" -m torch.distributed.run --nproc-per-node 2 --master-port "$port" "$@" > "$out/$name.log" 2>&1
}

echo "== GPU checks: torchrun --nproc-per-node 2 python/tests/gpu/torchrun_checks.py"
run_2pe checks python/tests/gpu/torchrun_checks.py
rc=$?
grep -E '\] (PASS|FAIL) ' "$out/checks.log"
passes=$(grep -c '\] PASS ' "$out/checks.log")
fails=$(grep -c '\] FAIL ' "$out/checks.log")
if [[ $rc -ne 0 || $fails -gt 0 ]]; then failures=$((failures + 1)); fi
verdicts+=("checks rc=$rc: $passes PASS, $fails FAIL lines")

# One PE kills itself while the other waits in a barrier: PE 1, then PE 0
# (rank 0 made the unique id: it hosts the socket bootstrap's rendezvous).
for victim in 1 0; do
  echo "== dead peer: torchrun ... torchrun_checks.py --dead-peer --victim $victim"
  run_2pe "dead-peer-$victim" python/tests/gpu/torchrun_checks.py --dead-peer --victim "$victim"
  grep -E '\] (PASS|FAIL) dead peer' "$out/dead-peer-$victim.log"
  # torchrun itself fails (a worker died): the verdict is the survivor's line.
  if grep -q '\] PASS dead peer' "$out/dead-peer-$victim.log"; then
    verdicts+=("dead PE $victim: PASS")
  else
    failures=$((failures + 1))
    verdicts+=("dead PE $victim: FAIL")
  fi
done

# gshmem.triton: Triton kernels calling gshmem's device routines (needs
# Triton in this Python and the package's device library).
if "$py" -c 'import triton' >/dev/null 2>&1; then
  echo "== Triton: torchrun ... python/tests/gpu/triton_checks.py"
  run_2pe triton python/tests/gpu/triton_checks.py
  rc=$?
  grep -E '\] (PASS|FAIL) ' "$out/triton.log"
  passes=$(grep -c '\] PASS ' "$out/triton.log")
  fails=$(grep -c '\] FAIL ' "$out/triton.log")
  if [[ $rc -ne 0 || $fails -gt 0 ]]; then failures=$((failures + 1)); fi
  verdicts+=("triton rc=$rc: $passes PASS, $fails FAIL lines")
else
  echo "== Triton: not installed for $py (gshmem.triton not checked)"
  verdicts+=("triton: not installed, not checked")
fi

echo "== python/examples/ring.py"
run_2pe ring python/examples/ring.py
rc=$?
grep -E 'OK|Error|error' "$out/ring.log" | head -4
[[ $rc -eq 0 ]] || failures=$((failures + 1))
verdicts+=("ring.py rc=$rc")

if [[ $bench == 1 ]]; then
  echo "== benchmark beside PyTorch symmetric memory"
  run_2pe bench python/benchmarks/bench_vs_torch_symm_mem.py --out "$out"
  rc=$?
  grep -E '^(\||#)' "$out/bench.log" | head -30
  [[ $rc -eq 0 ]] || failures=$((failures + 1))
  verdicts+=("bench rc=$rc")
  echo "== eager Python loops beside PyTorch symmetric memory (no graphs)"
  run_2pe bench-eager python/benchmarks/bench_eager_loop.py --out "$out"
  rc=$?
  grep -E '^(\||#)' "$out/bench-eager.log" | head -20
  [[ $rc -eq 0 ]] || failures=$((failures + 1))
  verdicts+=("bench-eager rc=$rc")
  if "$py" -c 'import triton' >/dev/null 2>&1; then
    echo "== gshmem.triton beside the same kernels in CUDA C"
    run_2pe bench-triton python/benchmarks/bench_triton_vs_cuda.py
    rc=$?
    grep -E '^(\||#)' "$out/bench-triton.log" | head -12
    [[ $rc -eq 0 ]] || failures=$((failures + 1))
    verdicts+=("bench-triton rc=$rc")
  fi
  echo "== host time per call of the Python layer (no CUDA work)"
  "$py" python/benchmarks/bench_host_overhead.py --json "$out/bench_host_overhead.jsonl" > "$out/bench-host.log" 2>&1
  rc=$?
  grep -E '^(\||#)' "$out/bench-host.log"
  [[ $rc -eq 0 ]] || failures=$((failures + 1))
  verdicts+=("bench-host rc=$rc")
fi

line="python (torchrun, 2 PEs, $gpus GPU)|$([[ $failures -eq 0 ]] && echo ok || echo "$failures FAILED")|$(IFS=';'; echo "${verdicts[*]}")"
echo "$line" > "$out/summary-line.txt"
echo "$line"
[[ $failures -eq 0 ]]
