# Sourced by install-deps.sh and sass_ab.sh: where cuobjdump is.
#   find_cuobjdump    prints the cuobjdump to use: the one beside nvcc, else
#                     on the PATH, else NVIDIA's pip package
#                     (nvidia-cuda-cuobjdump, for a toolkit that came without
#                     it); status 1 when there is none
#   cuobjdump_in_pip  the pip package's alone
cuobjdump_in_pip() {
  command -v python3 >/dev/null 2>&1 || return 1
  python3 - <<'PY' 2>/dev/null
import glob, os, site, sys
dirs = site.getsitepackages() + [site.getusersitepackages()]
hits = [p for d in dirs for p in glob.glob(os.path.join(d, "nvidia", "*", "bin", "cuobjdump"))]
print(hits[0]) if hits else sys.exit(1)
PY
}
find_cuobjdump() {
  local nvcc_bin
  nvcc_bin=$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/nvcc)")
  if [[ -x "$nvcc_bin/cuobjdump" ]]; then echo "$nvcc_bin/cuobjdump"
  elif command -v cuobjdump 2>/dev/null; then :
  else cuobjdump_in_pip
  fi
}
