#!/usr/bin/env bash
# The UCX transport module built against PyPI's libucx wheel (UCX 1.22 with
# its CUDA modules) as well as against the system's UCX, and its CPU tests
# run on that UCX: what the GPU machine's RMA mode runs on (docs/remote.md,
# "RMA mode"). Configures with -DUCX_ROOT at the wheel's own libucx folder,
# unpacked as it comes (its ucx.pc names the folder the wheel was built in;
# cmake/GshmemFindUCX.cmake then finds UCX by its files).
#   scripts/ci_ucx_wheel.sh            download the wheel (PyPI), build, test
#   UCX_WHEEL=path/to/libucx_cu13-*.whl  use that wheel instead of downloading
#   BUILD_DIR (default build-ucx-wheel)
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "ci_ucx_wheel: $*"; }
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
build_dir=${BUILD_DIR:-build-ucx-wheel}
mkdir -p "$build_dir"
wheel=${UCX_WHEEL:-}
if [[ -z "$wheel" ]]; then
  # The version the GPU machine's carried prefix comes from (scripts/ucx_cuda_prefix.sh).
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
    -d "$build_dir/wheel" "libucx-cu13==1.22.0"
  wheel=$(ls "$build_dir"/wheel/libucx_cu13-*.whl | head -1)
fi
[[ -f "$wheel" ]] || { say "no wheel at '$wheel'"; exit 1; }
rm -rf "$build_dir/unpacked"
python3 -m zipfile -e "$wheel" "$build_dir/unpacked"
ucx_root=$PWD/$build_dir/unpacked/libucx
[[ -f "$ucx_root/include/ucp/api/ucp.h" ]] || { say "the wheel has no libucx/include/ucp/api/ucp.h"; exit 1; }
say "UCX from $(basename "$wheel")"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUCX_ROOT="$ucx_root" -DGSHMEM_WITH_UCX=ON \
  -DGSHMEM_BUILD_GPU_TESTS=OFF -DGSHMEM_BUILD_EXAMPLES=OFF -DGSHMEM_BUILD_PYTHON=OFF -DGSHMEM_BUILD_PERFTEST=OFF \
  ${CMAKE_ARGS:-} | tee "$build_dir/configure.log" | grep -E "gshmem: (ucx|UCX)" || true
grep -q "UCX transport module on (.*$build_dir/unpacked/libucx" "$build_dir/configure.log" ||
  { say "configure did not take the wheel's UCX (see $build_dir/configure.log)"; exit 1; }
cmake --build "$build_dir" -j"$(nproc 2>/dev/null || echo 2)" --target gshmem_transport_ucx transport_ucx_rma
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# One UCX a process: the wheel's, for Open MPI's UCX components too.
export LD_LIBRARY_PATH=$ucx_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cd "$build_dir"
ctest --output-on-failure --no-tests=error -R '^transport_ucx'
