#!/usr/bin/env bash
# Checks what building and testing gshmem needs, by capability (a tool that
# works, a header that is there), not by package name, and installs only what
# is really missing:
#   required: CMake >= 3.25, a C++17 compiler, make or ninja, nvcc (CUDA 12/13),
#             MPI (mpicxx/mpirun + headers), Catch2 v2 or v3
#   optional: Python 3 with matplotlib (plots), NCCL headers (NCCL bootstrap),
#             UCX headers (libucx-dev: the UCX transport module for remote peers),
#             nanobind + pytest (the Python package's CPU test, python_cpu;
#             scikit-build-core too, for `pip install ./python`),
#             OpenSHMEM (oshcc: the OpenSHMEM bootstrap's tests over a real library),
#             cuobjdump (the register checks of tests/launch; pip: nvidia-cuda-cuobjdump),
#             clang 22 (the Triton device library: apt-get clang-22) and Triton
#             (pip: its CPU test, python_triton_cpu), cuTile + tileiras + cuobjdump
#             (pip: python_tile_cpu)
# Where something is missing it uses apt-get (as root, on Debian/Ubuntu, when a
# package registry answers); otherwise it prints exactly what to install. A
# missing optional piece is reported and the script goes on; a missing
# required one makes it exit 1 after listing everything that is missing.
set -uo pipefail
after_install=no
[[ "${1:-}" == --after-install ]] && after_install=yes

say() { echo "install-deps: $*"; }
warn() { echo "install-deps: $*" >&2; }

if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH  # scripts/test.sh does the same
fi

version_ge() {  # version_ge A B: A >= B (dotted numbers)
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" == "$2" ]]
}
have_header() {  # have_header REL_PATH [extra dirs...]
  local rel=$1; shift
  local d
  for d in "$@" /usr/include /usr/local/include /opt/homebrew/include ${CPATH:+${CPATH//:/ }} ${CPLUS_INCLUDE_PATH:+${CPLUS_INCLUDE_PATH//:/ }}; do
    [[ -n "$d" && -f "$d/$rel" ]] && { echo "$d/$rel"; return 0; }
  done
  return 1
}

missing_pkgs=()      # Debian packages that would provide what is missing
missing_required=()  # human descriptions of required pieces still missing
missing_optional=()

# ---- CMake >= 3.25 (from any source: Debian, pip, conda, a module system)
cmake_ok=no
if command -v cmake >/dev/null 2>&1; then
  v=$(cmake --version | head -1 | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?')
  if version_ge "$v" 3.25; then cmake_ok=yes; say "cmake $v: $(command -v cmake)"
  else warn "cmake $v at $(command -v cmake) is older than 3.25"; fi
fi
[[ $cmake_ok == yes ]] || { missing_pkgs+=(cmake); missing_required+=("CMake >= 3.25 (apt-get install cmake, or python3 -m pip install cmake)"); }

# ---- C++ compiler and a build tool
if command -v "${CXX:-c++}" >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1; then
  say "C++ compiler: $(command -v "${CXX:-c++}" 2>/dev/null || command -v g++)"
else
  missing_pkgs+=(g++); missing_required+=("a C++17 compiler (g++ 12 or newer)")
fi
if command -v make >/dev/null 2>&1 || command -v ninja >/dev/null 2>&1; then :; else
  missing_pkgs+=(make); missing_required+=("make or ninja")
fi

# ---- MPI: a compiler wrapper and a launcher
if command -v mpicxx >/dev/null 2>&1 || command -v mpicc >/dev/null 2>&1; then
  if command -v mpirun >/dev/null 2>&1 || command -v mpiexec >/dev/null 2>&1; then
    say "MPI: $(command -v mpicxx 2>/dev/null || command -v mpicc), $(command -v mpirun 2>/dev/null || command -v mpiexec)"
  else
    missing_pkgs+=(openmpi-bin); missing_required+=("an MPI launcher (mpirun)")
  fi
else
  missing_pkgs+=(libopenmpi-dev openmpi-bin); missing_required+=("MPI (Open MPI: libopenmpi-dev openmpi-bin)")
fi

# ---- Catch2 v3 (split headers) or v2 (single header)
if h=$(have_header catch2/catch_test_macros.hpp); then say "Catch2 v3: ${h%/catch_test_macros.hpp}"
elif h=$(have_header catch2/catch.hpp); then say "Catch2 v2: $h"
else missing_pkgs+=(catch2); missing_required+=("Catch2 v2.13 or v3 (apt-get install catch2)")
fi

# ---- nvcc (comes from NVIDIA, never installed here)
if command -v nvcc >/dev/null 2>&1; then
  say "nvcc: $(command -v nvcc) ($(nvcc --version | grep -oE 'release [0-9.]+' | head -1))"
else
  missing_required+=("nvcc: install NVIDIA's CUDA toolkit (12.x or 13.x) and put its bin/ on PATH")
fi

# ---- optional: Python 3 + matplotlib (plots of the benchmarks; a test checks them)
if command -v python3 >/dev/null 2>&1 && python3 -c 'import matplotlib' >/dev/null 2>&1; then
  say "matplotlib: $(python3 -c 'import matplotlib; print(matplotlib.__version__)') for $(command -v python3)"
elif command -v python3 >/dev/null 2>&1 && { [[ $(id -u) -eq 0 ]] || [[ -n "${VIRTUAL_ENV:-}" ]]; } &&
     [[ $after_install == no ]] && python3 -m pip install --quiet matplotlib >/dev/null 2>&1 &&
     python3 -c 'import matplotlib' >/dev/null 2>&1; then
  say "matplotlib: installed with pip for $(command -v python3)"
else
  missing_optional+=("matplotlib for $(command -v python3 || echo python3) (plots; python3 -m pip install matplotlib)")
  command -v python3 >/dev/null 2>&1 || missing_pkgs+=(python3)
fi

# ---- optional: nanobind, scikit-build-core and pytest (the Python package:
# its extension is built and python_cpu runs only with nanobind and pytest;
# without them the configure says so and the test reports itself skipped)
if command -v python3 >/dev/null 2>&1 &&
   ! python3 -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null; then
  missing_pkgs+=(python3-dev)
  missing_optional+=("Python's development headers (Python.h; apt-get install python3-dev): the Python package is not built without them")
fi
py_pkgs_ok() { python3 -c 'import nanobind, pytest, scikit_build_core' >/dev/null 2>&1; }
if command -v python3 >/dev/null 2>&1 && py_pkgs_ok; then
  say "Python package tools: nanobind $(python3 -c 'import nanobind; print(nanobind.__version__)'), pytest $(python3 -c 'import pytest; print(pytest.__version__)')"
elif command -v python3 >/dev/null 2>&1 && { [[ $(id -u) -eq 0 ]] || [[ -n "${VIRTUAL_ENV:-}" ]]; } &&
     [[ $after_install == no ]] && timeout 300 python3 -m pip install --quiet --retries 1 --timeout 20 nanobind scikit-build-core pytest >/dev/null 2>&1 &&
     py_pkgs_ok; then
  say "Python package tools: nanobind, scikit-build-core, pytest installed with pip for $(command -v python3)"
else
  missing_optional+=("nanobind, scikit-build-core and pytest for $(command -v python3 || echo python3) (the Python package and its test python_cpu; python3 -m pip install nanobind scikit-build-core pytest)")
fi

# ---- optional: cuobjdump (tests/launch reads every test kernel's register count
# with it; the test is reported as skipped without). The CUDA toolkit has it;
# where a toolkit came without it, NVIDIA's pip package carries it
# (scripts/cuda_tools.sh finds either).
. "$(dirname "${BASH_SOURCE[0]}")/cuda_tools.sh"
if c=$(find_cuobjdump); then say "cuobjdump: $c$([[ $c == */nvidia/*/bin/cuobjdump ]] && echo ' (pip)')"
elif command -v python3 >/dev/null 2>&1 && { [[ $(id -u) -eq 0 ]] || [[ -n "${VIRTUAL_ENV:-}" ]]; } &&
     [[ $after_install == no ]] && python3 -m pip install --quiet nvidia-cuda-cuobjdump >/dev/null 2>&1 &&
     c=$(cuobjdump_in_pip); then
  say "cuobjdump: installed with pip: $c"
else
  missing_optional+=("cuobjdump (the register checks of tests/launch; python3 -m pip install nvidia-cuda-cuobjdump)")
fi

# ---- optional: nvdisasm, which `cuobjdump -sass` runs (launch_no_calls reads
# the kernels' SASS; reported as skipped without). Looked for beside the
# cuobjdump found above, then on PATH; else NVIDIA's pip package, which puts
# it beside the pip cuobjdump.
cuobjdump_path=$(find_cuobjdump)
if [[ -n "$cuobjdump_path" && -x "$(dirname "$cuobjdump_path")/nvdisasm" ]]; then say "nvdisasm: $(dirname "$cuobjdump_path")/nvdisasm"
elif command -v nvdisasm >/dev/null 2>&1; then say "nvdisasm: $(command -v nvdisasm)"
elif [[ -n "$cuobjdump_path" && "$cuobjdump_path" == */nvidia/*/bin/cuobjdump ]] && command -v python3 >/dev/null 2>&1 &&
     { [[ $(id -u) -eq 0 ]] || [[ -n "${VIRTUAL_ENV:-}" ]]; } && [[ $after_install == no ]] &&
     python3 -m pip install --quiet nvidia-cuda-nvdisasm >/dev/null 2>&1 && [[ -x "$(dirname "$cuobjdump_path")/nvdisasm" ]]; then
  say "nvdisasm: installed with pip: $(dirname "$cuobjdump_path")/nvdisasm"
else
  missing_optional+=("nvdisasm (cuobjdump -sass needs it: the SASS check launch_no_calls; python3 -m pip install nvidia-cuda-nvdisasm)")
fi

# ---- optional: OpenSHMEM (Open MPI's OSHMEM, which Debian's MPI packages above bring)
if command -v oshcc >/dev/null 2>&1 && oshcc --showme:compile >/dev/null 2>&1; then say "OpenSHMEM: $(command -v oshcc)"
else missing_optional+=("OpenSHMEM (oshcc: Open MPI's OSHMEM, in libopenmpi-dev + openmpi-bin): the OpenSHMEM bootstrap's tests over a real library are not built without it")
fi

# ---- optional: pkg-config (the install test builds a program without CMake through gshmem.pc)
if command -v pkg-config >/dev/null 2>&1; then say "pkg-config: $(command -v pkg-config)"
else missing_pkgs+=(pkg-config); missing_optional+=("pkg-config (apt-get install pkg-config): the build without CMake is not checked without it")
fi

# ---- optional: NCCL headers (NCCL bootstrap plugin)
if h=$(have_header nccl.h /usr/local/cuda/include ${NCCL_ROOT:+$NCCL_ROOT/include}); then say "NCCL: $h"
else missing_optional+=("NCCL headers (libnccl-dev from NVIDIA's repository, or NCCL_ROOT): the NCCL bootstrap is not built without them")
fi

# ---- optional: UCX headers (the UCX transport module for remote peers, and its CPU tests):
# Debian's libucx-dev, or a UCX prefix in UCX_ROOT (e.g. the libucx folder of PyPI's
# libucx-cu12/-cu13 wheels, which CMake then finds through -DUCX_ROOT= or the environment)
if h=$(have_header ucp/api/ucp.h ${UCX_ROOT:+$UCX_ROOT/include}); then say "UCX: $h"
else missing_pkgs+=(libucx-dev); missing_optional+=("UCX headers (apt-get install libucx-dev, or UCX_ROOT=<prefix>): the UCX transport module and its tests are not built without them")
fi

# ---- optional: a clang that compiles CUDA device code with this toolkit's
# headers (the Triton device library, gshmem_triton.ll: clang 14 to 19 fail
# on CUDA 13's headers, clang 22 works), and Triton (python_triton_cpu
# compiles kernels with it; no GPU needed). On their own, after the rest:
# clang-22 is not in every Debian release, and a failed install must not
# hold up the other packages.
triton_clang() { local c; for c in clang++-22 clang++-21 clang++-20; do command -v $c >/dev/null 2>&1 && { command -v $c; return 0; }; done; return 1; }
if c=$(triton_clang); then say "clang for the Triton device library: $c"
elif [[ $after_install == no && $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1 &&
     { apt-cache show clang-22 >/dev/null 2>&1 || { timeout 180 apt-get update -qq && apt-cache show clang-22 >/dev/null 2>&1; }; } &&
     DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends clang-22 >/dev/null 2>&1 &&
     c=$(triton_clang); then
  say "clang for the Triton device library: installed with apt-get: $c"
else
  missing_optional+=("clang 22 (apt-get install clang-22): the Triton device library (gshmem_triton.ll) is not built without it")
fi
if command -v python3 >/dev/null 2>&1 && python3 -c 'import triton' >/dev/null 2>&1; then
  say "Triton: $(python3 -c 'import triton; print(triton.__version__)') for $(command -v python3)"
elif command -v python3 >/dev/null 2>&1 && { [[ $(id -u) -eq 0 ]] || [[ -n "${VIRTUAL_ENV:-}" ]]; } &&
     [[ $after_install == no ]] && timeout 300 python3 -m pip install --quiet --retries 1 --timeout 20 'triton==3.9.*' >/dev/null 2>&1 &&
     python3 -c 'import triton' >/dev/null 2>&1; then
  say "Triton: installed with pip for $(command -v python3)"
else
  missing_optional+=("Triton for $(command -v python3 || echo python3) (python_triton_cpu; python3 -m pip install 'triton==3.9.*')")
fi

# cuTile (cuda.tile) and its compiler tileiras, with cuobjdump: python_tile_cpu
# compiles gshmem.tile's kernels for sm_90 and reads their SASS (no GPU needed).
if command -v python3 >/dev/null 2>&1 && python3 -c 'import cuda.tile, cuda.tile._compile as c; c._find_compiler_bin()' >/dev/null 2>&1; then
  say "cuTile: $(python3 -c 'import cuda.tile; print(cuda.tile.__version__)') for $(command -v python3)"
elif command -v python3 >/dev/null 2>&1 && { [[ $(id -u) -eq 0 ]] || [[ -n "${VIRTUAL_ENV:-}" ]]; } &&
     [[ $after_install == no ]] && timeout 300 python3 -m pip install --quiet --retries 1 --timeout 20 'cuda-tile==1.7.*' \
       nvidia-cuda-tileiras nvidia-cuda-cuobjdump >/dev/null 2>&1 && python3 -c 'import cuda.tile' >/dev/null 2>&1; then
  say "cuTile: installed with pip for $(command -v python3)"
else
  missing_optional+=("cuTile for $(command -v python3 || echo python3) (python_tile_cpu; python3 -m pip install 'cuda-tile==1.7.*' nvidia-cuda-tileiras nvidia-cuda-cuobjdump)")
fi

# ---- install what apt-get can provide, where it can
if ((${#missing_pkgs[@]})) && [[ $after_install == no ]]; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "installing with apt-get: ${missing_pkgs[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # Bounded: on a machine without a reachable registry (a GPU machine that
    # lacks only optional packages) the attempt must not hold the run up.
    if timeout 180 apt-get update -qq && timeout 600 apt-get install -y -qq --no-install-recommends "${missing_pkgs[@]}"; then
      exec bash "$0" --after-install  # check again what is there now
    fi
    warn "apt-get could not install them (no package registry reachable?)"
  else
    warn "to install the missing Debian packages: sudo apt-get install -y ${missing_pkgs[*]}"
  fi
fi

for m in "${missing_optional[@]}"; do warn "optional, missing: $m"; done
if ((${#missing_required[@]})); then
  for m in "${missing_required[@]}"; do warn "REQUIRED, missing: $m"; done
  exit 1
fi
say "everything required is present"
