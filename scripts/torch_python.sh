# Sourced by the scripts that run the Python package on a GPU machine
# (python_gpu.sh, python_tile_gpu.sh, python_nvshmem4py.sh), from the
# repository root:
#   torch_python   prints the Python to build and run the package with:
#                  $GSHMEM_PYTHON when set, else the first of python3 and the
#                  virtual environments /opt/*/.venv that imports torch, else
#                  python3
#   build_python_extension PY DIR LOGS
#                  configures and builds the library and the extension for PY
#                  in DIR (Release; tests, perftests and examples off; the
#                  Triton device library from .triton/gshmem_triton.ll where
#                  present), logs in LOGS/configure.log and LOGS/build.log;
#                  status 0 when built, else the logs' tails are printed
torch_python() {
  local candidate
  if [[ -n "${GSHMEM_PYTHON:-}" ]]; then echo "$GSHMEM_PYTHON"; return; fi
  for candidate in python3 /opt/*/.venv/bin/python; do
    if "$candidate" -c 'import torch' >/dev/null 2>&1; then echo "$candidate"; return; fi
  done
  echo python3
}

build_python_extension() {
  local py=$1 dir=$2 logs=$3
  local bitcode=()
  [[ -f .triton/gshmem_triton.ll ]] && bitcode=(-DGSHMEM_TRITON_BITCODE_FILE="$PWD/.triton/gshmem_triton.ll")
  echo "== configure + build the library and the extension for $py in $dir"
  if ! { cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DGSHMEM_BUILD_TESTS=OFF -DGSHMEM_BUILD_PERFTEST=OFF \
           -DGSHMEM_BUILD_EXAMPLES=OFF -DGSHMEM_BUILD_PYTHON=ON -DPython_EXECUTABLE="$py" "${bitcode[@]}" \
           > "$logs/configure.log" 2>&1 &&
         cmake --build "$dir" --target _gshmem -j"$(nproc)" > "$logs/build.log" 2>&1; }; then
    tail -n 30 "$logs/configure.log" "$logs/build.log" 2>/dev/null
    return 1
  fi
}
