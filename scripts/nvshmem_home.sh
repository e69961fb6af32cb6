# Sourced by scripts/bench.sh and scripts/nvshmem_programs.sh: where the
# NVSHMEM library is, and how to link a program against it.
#
#   nvshmem_find_home [DIR]    prints the folder holding include/nvshmem.h and
#                              lib/ (DIR when given and valid, else the
#                              nvidia-nvshmem-cu13/-cu12 wheel of python3's
#                              site-packages), or nothing
#   nvshmem_link_flags HOME    sets NVSHMEM_LINK_FLAGS (an array): the host and
#                              device libraries and an rpath, for an nvcc -rdc link
#   nvshmem_run_environment    prints the NAME=VALUE pairs an NVSHMEM program
#                              needs under mpirun here (bootstrap over MPI, no
#                              remote transport on one node), keeping values the
#                              caller has set
#   nvshmem_version HOME       prints the version HOME's headers carry (3.4.5)

nvshmem_find_home() {
  local dir="${1:-}"
  if [ -n "$dir" ]; then
    [ -f "$dir/include/nvshmem.h" ] && (cd "$dir" && pwd)
    return 0
  fi
  python3 - <<'PY' 2>/dev/null
import os, site, sys
roots = list(site.getsitepackages()) + [site.getusersitepackages()] + sys.path
for r in roots:
    h = os.path.join(r, "nvidia", "nvshmem", "include", "nvshmem.h")
    if os.path.isfile(h):
        print(os.path.dirname(os.path.dirname(h)))
        break
PY
}

nvshmem_link_flags() {
  local lib="$1/lib" host=(-lnvshmem_host) so
  if [ ! -e "$lib/libnvshmem_host.so" ]; then
    # The wheel ships only the versioned name.
    so=$(ls "$lib"/libnvshmem_host.so.* 2>/dev/null | head -1)
    [ -n "$so" ] && host=("-l:$(basename "$so")")
  fi
  NVSHMEM_LINK_FLAGS=(-L"$lib" "${host[@]}" -lnvshmem_device -Xlinker -rpath,"$lib")
}

nvshmem_run_environment() {
  echo "NVSHMEM_BOOTSTRAP=${NVSHMEM_BOOTSTRAP:-MPI}"
  echo "NVSHMEM_REMOTE_TRANSPORT=${NVSHMEM_REMOTE_TRANSPORT:-none}"
}

# nvshmem_version HOME: the version HOME's headers carry (3.4.5), or "unknown".
nvshmem_version() {
  awk '$1 == "#define" && $2 ~ /^NVSHMEM_VENDOR_(MAJOR|MINOR|PATCH)_VERSION$/ { p = p (p == "" ? "" : ".") $3 }
       END { print (p == "" ? "unknown" : p) }' "$1/include/non_abi/nvshmem_version.h" 2>/dev/null
}
