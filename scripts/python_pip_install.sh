#!/usr/bin/env bash
# `pip install ./python` as a user runs it, against a build of this tree:
#
#   scripts/python_pip_install.sh BUILD_DIR WORK_DIR [PYTHON]
#
# installs BUILD_DIR into WORK_DIR/prefix (cmake --install), then builds and
# installs the Python package with pip into WORK_DIR/site, linking that
# prefix (found through CMAKE_PREFIX_PATH: the package then builds only its
# extension, not the library again: checked), and prints WORK_DIR/site on
# its last line, for PYTHONPATH. pip runs without build isolation and without an index, so no
# registry is needed: scikit-build-core and nanobind must already be
# installed for PYTHON (default python3). Exit status: 0 installed, 77
# scikit-build-core or nanobind missing (said why), other: a step failed
# (its log is printed).
set -uo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 BUILD_DIR WORK_DIR [PYTHON]" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=$1 work=$2 py=${3:-python3}
for module in scikit_build_core nanobind; do
  if ! "$py" -c "import $module" >/dev/null 2>&1; then
    echo "python_pip_install: $module is not installed for $py ($py -m pip install scikit-build-core nanobind)"
    exit 77
  fi
done
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
if ! cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1; then
  tail -n 30 "$work/install.log"
  echo "python_pip_install: cmake --install $build failed"
  exit 1
fi
# The package's build folder goes to WORK_DIR, not into the source tree.
pip_start=$(date +%s)
# Every core where scikit-build-core falls back to Make (it prefers Ninja).
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}
if ! CMAKE_PREFIX_PATH="$work/prefix" "$py" -m pip install -v --no-build-isolation --no-deps --no-index \
     --target "$work/site" -C build-dir="$work/pip-build" "$root/python" > "$work/pip.log" 2>&1; then
  tail -n 40 "$work/pip.log"
  echo "python_pip_install: pip install $root/python failed"
  exit 1
fi
if [[ -e "$work/pip-build/gshmem-lib" ]] || ! grep -q "linking the installed gshmem" "$work/pip.log"; then
  grep "gshmem python:" "$work/pip.log"
  echo "python_pip_install: pip built libgshmem again instead of linking $work/prefix"
  exit 1
fi
echo "python_pip_install: pip built and installed the package in $(( $(date +%s) - pip_start )) s (only its extension: gshmem from $work/prefix)"
echo "$work/site"
