#!/usr/bin/env bash
# A UCX prefix with CUDA support (cuda_copy, cuda_ipc) made from PyPI's
# libucx-cu13 (or libucx-cu12) wheel, small enough to travel with the source
# tree to a machine without a package registry, for the transport module's
# RMA mode on GPU memory (docs/remote.md, "RMA mode").
#
#   scripts/ucx_cuda_prefix.sh WHEEL_OR_DIR [DIR]
#
# WHEEL_OR_DIR: the downloaded wheel (libucx_cu13-*.whl), or the folder it was
# unpacked into. DIR (default .ucx-cuda, ignored by git): what is made there:
#   lib/       libucp/libuct/libucs/libucm (by soname, debug info stripped),
#              their .so links for the linker, and the CUDA runtime the wheel
#              bundles for its memory hooks (libucm_cuda needs it by its
#              hashed name)
#   lib/ucx/   the modules: cuda (cuda_copy, cuda_ipc, gdr_copy), cuda memory
#              hooks, cma (tcp, posix, sysv and self are in libuct itself)
#   lib/pkgconfig/  ucx.pc and its parts, relocatable (prefix from pcfiledir)
#   include/   ucp, uct, ucs, ucm headers
#   bin/ucx_info
#
# Get the wheel where a registry is reachable, e.g.
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --platform manylinux_2_28_x86_64 -d /tmp/ucxwheel libucx-cu13
# Use it:
#   cmake -S . -B build -DUCX_ROOT=$PWD/.ucx-cuda
#   export LD_LIBRARY_PATH=$PWD/.ucx-cuda/lib:$LD_LIBRARY_PATH
# The whole process must run on this UCX (one UCX per process: Open MPI's
# UCX components load libucp.so.0 too, and the first one loaded serves
# everybody); LD_LIBRARY_PATH puts it first. UCX finds its modules in
# lib/ucx beside the libucs.so.0 it loaded (UCX_MODULE_DIR overrides).
# The cuda modules need the driver's libcuda.so.1 and libnvidia-ml.so.1 at
# run time, nothing else from a CUDA toolkit.
set -euo pipefail

die() { echo "ucx_cuda_prefix.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $0 WHEEL_OR_DIR [DIR]"
src=$1
dir=${2:-.ucx-cuda}

work=""
cleanup() { [ -n "$work" ] && rm -rf "$work"; }
trap cleanup EXIT
if [ -f "$src" ]; then
  work=$(mktemp -d)
  python3 -m zipfile -e "$src" "$work" || die "$src: not a wheel (zip) file"
  src=$work
fi
ucx=$src/libucx
[ -f "$ucx/include/ucp/api/ucp.h" ] || die "$src: no libucx/include/ucp/api/ucp.h (not a libucx-cu1x wheel?)"
libs=$(ls -d "$src"/libucx_cu*.libs 2>/dev/null | head -1)

rm -rf "$dir"
mkdir -p "$dir/lib/ucx" "$dir/lib/pkgconfig" "$dir/bin"
strip_copy() {  # strip_copy FILE DEST: a copy without debug information
  cp -L "$1" "$2"
  chmod 0755 "$2"  # a wheel unpacked by python's zipfile keeps no modes
  if command -v strip >/dev/null; then strip --strip-debug "$2" 2>/dev/null || true; fi
}
for l in ucp uct ucs ucm; do
  [ -e "$ucx/lib/lib$l.so.0" ] || die "$ucx/lib/lib$l.so.0 missing"
  strip_copy "$ucx/lib/lib$l.so.0" "$dir/lib/lib$l.so.0"
  ln -sfn "lib$l.so.0" "$dir/lib/lib$l.so"
done
n_modules=0
for m in uct_cuda ucm_cuda uct_cuda_gdrcopy uct_cma; do
  if [ -e "$ucx/lib/ucx/lib$m.so.0" ]; then
    strip_copy "$ucx/lib/ucx/lib$m.so.0" "$dir/lib/ucx/lib$m.so.0"
    n_modules=$((n_modules + 1))
  fi
done
[ -e "$dir/lib/ucx/libuct_cuda.so.0" ] || die "$ucx/lib/ucx/libuct_cuda.so.0 missing: a UCX without CUDA support"
# libucm_cuda names the wheel's bundled CUDA runtime by its hashed file name
# (found through its RPATH inside the wheel; here through LD_LIBRARY_PATH).
for need in $(readelf -d "$dir"/lib/ucx/*.so.0 2>/dev/null | sed -n 's/.*NEEDED.*\[\(libcudart[^]]*\)\].*/\1/p' | sort -u); do
  [ -n "$libs" ] && [ -e "$libs/$need" ] || die "$need (needed by the cuda memory hooks) not in the wheel"
  strip_copy "$libs/$need" "$dir/lib/$need"
done
cp -r "$ucx/include" "$dir/include"
if [ -e "$ucx/bin/ucx_info" ]; then strip_copy "$ucx/bin/ucx_info" "$dir/bin/ucx_info"; fi
for pc in "$ucx"/lib/pkgconfig/ucx.pc "$ucx"/lib/pkgconfig/ucx-ucs.pc "$ucx"/lib/pkgconfig/ucx-uct.pc; do
  [ -e "$pc" ] || continue
  sed 's|^prefix *=.*|prefix=${pcfiledir}/../..|' "$pc" >"$dir/lib/pkgconfig/$(basename "$pc")"
done
version=$(cat "$ucx/UCX_WHEEL_VERSION.txt" 2>/dev/null || echo '?')
echo "UCX $version with CUDA ($n_modules modules) -> $dir ($(du -sh "$dir" | cut -f1)); run with" \
     "LD_LIBRARY_PATH=$(cd "$dir" && pwd)/lib"
