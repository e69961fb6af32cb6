# Sourced by scripts/python_gpu.sh and scripts/python_tile_gpu.sh:
#   torch_python   prints the Python to build and run the package with:
#                  $GSHMEM_PYTHON when set, else the first of python3 and the
#                  virtual environments /opt/*/.venv that imports torch, else
#                  python3
torch_python() {
  local candidate
  if [[ -n "${GSHMEM_PYTHON:-}" ]]; then echo "$GSHMEM_PYTHON"; return; fi
  for candidate in python3 /opt/*/.venv/bin/python; do
    if "$candidate" -c 'import torch' >/dev/null 2>&1; then echo "$candidate"; return; fi
  done
  echo python3
}
