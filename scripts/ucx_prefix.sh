#!/usr/bin/env bash
# A UCX prefix for building the UCX transport module on a machine that has
# UCX's run-time libraries but not its headers (no libucx-dev, no registry).
#
#   scripts/ucx_prefix.sh pack DIR     where UCX headers are installed (e.g. Debian's
#                                      libucx-dev): copy ucp/ uct/ ucs/ ucm/ headers to
#                                      DIR/include, to travel with the source tree
#   scripts/ucx_prefix.sh link DIR     on the machine that builds: DIR/lib gets
#                                      libucp.so/libucs.so/libuct.so/libucm.so links to
#                                      the run-time libraries the dynamic linker knows
#                                      (ldconfig -p); prints DIR, for UCX_ROOT=DIR
#
# Why headers of one UCX with the run-time libraries of another: a process
# holds one UCX (libucp.so.0 and friends are loaded once per soname), and
# under mpirun Open MPI has usually loaded the machine's own UCX already
# (its pml/osc components link it); a module linked against a second,
# newer UCX would then run on the machine's one anyway. UCX keeps its
# application interface backward compatible within 1.x (structures grow
# behind field masks), so a module built with older headers (Debian 12:
# 1.13) runs on the machine's newer libraries (1.16 on Ubuntu 24.04); the
# reverse is not promised, which is why newer headers (a PyPI libucx wheel)
# are used only where that UCX is the one the process loads (UCX_ROOT at
# the wheel's libucx folder, with no other UCX in the process).
set -euo pipefail

die() { echo "ucx_prefix.sh: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: $0 pack|link DIR"
mode=$1
dir=$2

case "$mode" in
pack)
  src=""
  for inc in ${UCX_ROOT:+$UCX_ROOT/include} /usr/include /usr/local/include; do
    if [ -f "$inc/ucp/api/ucp.h" ]; then src=$inc; break; fi
  done
  [ -n "$src" ] || die "no UCX headers found (ucp/api/ucp.h under \$UCX_ROOT/include, /usr/include, /usr/local/include): install libucx-dev"
  mkdir -p "$dir/include"
  for d in ucp uct ucs ucm; do
    [ -d "$src/$d" ] && cp -r "$src/$d" "$dir/include/"
  done
  version=$(sed -n 's/^#define UCP_API_MAJOR *\([0-9]*\).*/\1/p;s/^#define UCP_API_MINOR *\([0-9]*\).*/\1/p' \
              "$src/ucp/api/ucp_version.h" 2>/dev/null | paste -sd. -)
  echo "UCX ${version:-?} headers from $src -> $dir/include ($(du -sh "$dir/include" | cut -f1))"
  ;;
link)
  [ -f "$dir/include/ucp/api/ucp.h" ] || die "$dir/include/ucp/api/ucp.h missing: run '$0 pack $dir' where UCX headers are installed"
  mkdir -p "$dir/lib"
  for lib in ucp ucs uct ucm; do
    so=$(ldconfig -p 2>/dev/null | awk -v n="lib$lib.so.0" '$1 == n && /x86-64|x86_64|aarch64|AArch64/ {print $NF; exit}')
    [ -n "$so" ] || so=$(ldconfig -p 2>/dev/null | awk -v n="lib$lib.so.0" '$1 == n {print $NF; exit}')
    [ -n "$so" ] || die "the dynamic linker knows no lib$lib.so.0 (UCX run-time libraries, e.g. Debian/Ubuntu libucx0)"
    ln -sfn "$so" "$dir/lib/lib$lib.so"
  done
  echo "$dir"
  ;;
*) die "unknown mode '$mode' (pack or link)" ;;
esac
