#!/usr/bin/env bash
# Whether a change altered the machine code of the point-to-point path,
# without a GPU: the same kernels compiled against two source trees of
# gshmem, compared instruction for instruction (scripts/sass_ab.py).
#
#   scripts/sass_ab.sh [--arch 90] [--out DIR] [--nvshmem-src DIR] [--nvml-include DIR] TREE_A TREE_B
#
# Three sets, each kernel of each compared:
#   perftest   TREE_A's point-to-point benchmark sources (perftest/latency,
#              wait, bw, fan, stream, barrier .cu: one benchmark source, so
#              only the library's headers differ) against A's and B's headers;
#   library    each tree's own device/rma_kernels.cu and stream_kernels.cu
#              (the kernels behind the host and on-stream RMA routines);
#   nvshmem    with --nvshmem-src, NVIDIA's point-to-point perftests
#              (perftest/device/pt-to-pt/*.cu of an NVSHMEM source tree)
#              against each tree's compatibility headers (nvml.h from
#              --nvml-include, or the CUDA toolkit's).
# A kernel that is the same on both sides runs the same instructions: its
# speed cannot have changed, which bench_ab.sh can then only confirm on GPUs.
# A difference is listed by kernel name (where to look, and what to time).
# Writes DIR/sass_ab.md (default: $OUT, else ./sass-ab); the dumps stay in a
# temporary folder. Exit status: 0 when every kernel is the same, 1 when one
# differs, 2 when something could not be compiled or found.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
arch=90 out="${OUT:-$PWD/sass-ab}" nvshmem_src="" nvml_include=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --arch) arch=$2; shift ;;
    --out) out=$2; shift ;;
    --nvshmem-src) nvshmem_src=$2; shift ;;
    --nvml-include) nvml_include=$2; shift ;;
    -*) echo "sass_ab.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
if [[ $# -ne 2 || ! -f "$1/include/gshmem/gshmem.h" || ! -f "$2/include/gshmem/gshmem.h" ]]; then
  echo "usage: $0 [--arch 90] [--out DIR] [--nvshmem-src DIR] [--nvml-include DIR] TREE_A TREE_B (gshmem source trees)" >&2
  exit 2
fi
tree_a=$(cd "$1" && pwd) tree_b=$(cd "$2" && pwd)
command -v nvcc > /dev/null || { [[ -x /usr/local/cuda/bin/nvcc ]] && export PATH=/usr/local/cuda/bin:$PATH; }
command -v nvcc > /dev/null || { echo "sass_ab.sh: nvcc not found" >&2; exit 2; }
. "$root/scripts/cuda_tools.sh"
cuobjdump=$(find_cuobjdump) ||
  { echo "sass_ab.sh: cuobjdump not found (the CUDA toolkit's, or pip install nvidia-cuda-cuobjdump)" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gshmem-sass-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gen/gshmem" "$work/pairs"
# The one generated header; its contents do not reach device code.
printf '#pragma once\n#define GSHMEM_VERSION_MAJOR 0\n#define GSHMEM_VERSION_MINOR 0\n#define GSHMEM_VERSION_PATCH 0\n#define GSHMEM_VERSION_STRING "0.0.0"\n' \
  > "$work/gen/gshmem/version.h"

# One job a line: NAME SIDE SOURCE FLAGS...; compiled side by side.
jobs="$work/jobs.txt"
: > "$jobs"
for side in a b; do
  tree=$tree_a
  [[ $side == b ]] && tree=$tree_b
  for f in latency wait bw fan stream barrier; do
    [[ -f "$tree_a/perftest/$f.cu" ]] &&
      echo "perftest_$f $side $tree_a/perftest/$f.cu -I$tree_a/perftest -I$tree/include" >> "$jobs"
  done
  for f in rma_kernels stream_kernels; do
    echo "library_$f $side $tree/device/$f.cu -DGSHMEM_BUILDING_LIBRARY -I$tree/include -I$tree/src -I$tree/device -I$tree" >> "$jobs"
  done
  if [[ -n $nvshmem_src ]]; then
    nvml=${nvml_include:-$(dirname "$(command -v nvcc)")/../include}
    for cu in "$nvshmem_src"/perftest/device/pt-to-pt/*.cu; do
      echo "nvshmem_$(basename "$cu" .cu) $side $cu -I$tree/include/gshmem/compat -I$tree/include -I$nvshmem_src/perftest/common -I$nvml" >> "$jobs"
    done
  fi
done
compile_one() {  # NAME SIDE SOURCE FLAGS...
  local name=$1 side=$2 src=$3
  shift 3
  nvcc -std=c++17 -O3 -DNDEBUG -arch=sm_"$arch" -cubin -I"$work/gen" "$@" "$src" -o "$work/$name.$side.cubin" \
    > "$work/$name.$side.log" 2>&1 &&
    "$cuobjdump" -sass "$work/$name.$side.cubin" > "$work/pairs/$name.$side.sass" 2>> "$work/$name.$side.log" ||
    { echo "sass_ab.sh: $name ($side) failed:" >&2; tail -n 5 "$work/$name.$side.log" >&2; return 1; }
}
export -f compile_one
export work arch cuobjdump
echo "[sass_ab] compiling $(wc -l < "$jobs") translation units ($(nproc) at a time)"
if ! xargs -P "$(nproc)" -L 1 bash -c 'compile_one "$@"' _ < "$jobs"; then
  echo "sass_ab.sh: a compilation failed (above)" >&2
  exit 2
fi
{
  echo "# SASS of A and B, kernel by kernel"
  echo
  echo "A: $tree_a ($(git -C "$tree_a" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
  echo "B: $tree_b ($(git -C "$tree_b" rev-parse --short HEAD 2>/dev/null || echo 'no git')), sm_$arch, nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
  echo
} > "$out/sass_ab.md"
python3 "$root/scripts/sass_ab.py" "$work/pairs" --out "$work/table.md"
rc=$?
[[ $rc -le 1 ]] && cat "$work/table.md" >> "$out/sass_ab.md"
echo "[sass_ab] table: $out/sass_ab.md"
exit $rc
