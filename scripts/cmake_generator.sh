# Sourced by test.sh, bench.sh and device_run.sh:
#   gshmem_generator_args BUILD_DIR   -> prints "-G Ninja" or nothing
# Ninja where it is found (on the PATH, or Python's ninja package) and the
# build folder is new, unless CMAKE_GENERATOR says otherwise: with Ninja a
# target's sources compile while the libraries it links are still being
# built, where Make's generator waits for each dependency target to finish
# (the tests' and perftests' sources wait for the whole library), so every
# core has work from the start. An existing build folder keeps its generator.
gshmem_generator_args() {
  [[ -n "${CMAKE_GENERATOR:-}" || -f "$1/CMakeCache.txt" ]] && return 0
  if command -v ninja >/dev/null 2>&1; then
    echo "-G Ninja"
  elif ninja=$(python3 -c 'import ninja, os; print(os.path.join(ninja.BIN_DIR, "ninja"))' 2>/dev/null) &&
       [[ -x "$ninja" ]]; then
    echo "-G Ninja -DCMAKE_MAKE_PROGRAM=$ninja"
  fi
}
