#!/usr/bin/env bash
# Installs what building and testing gshmem needs and is missing.
# As root on Debian/Ubuntu: apt-get installs the missing packages.
# Otherwise: prints the exact command to run. The CUDA toolkit (nvcc) is not
# installed here (it comes from NVIDIA); this script checks for it.
set -euo pipefail

packages=(cmake g++ make libopenmpi-dev openmpi-bin catch2 python3 python3-matplotlib)

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
  done
  # Catch2 v3 built from source (as on the GPU machine) serves as well as the package.
  if [[ " ${missing[*]} " == *" catch2 "* ]] && [[ -f /usr/include/catch2/catch_test_macros.hpp || -f /usr/local/include/catch2/catch_test_macros.hpp ]]; then
    missing=("${missing[@]/catch2}")
    read -r -a missing <<<"${missing[*]}"
  fi
  if ((${#missing[@]})); then
    if [[ $(id -u) -eq 0 ]]; then
      echo "install-deps: installing ${missing[*]}"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends "${missing[@]}"
    else
      echo "install-deps: missing packages. Run:" >&2
      echo "  sudo apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  else
    echo "install-deps: all Debian packages present"
  fi
else
  echo "install-deps: not a Debian system; make sure these are installed: ${packages[*]}" >&2
fi

if command -v nvcc >/dev/null 2>&1; then
  echo "install-deps: nvcc: $(command -v nvcc)"
elif [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: nvcc: /usr/local/cuda/bin/nvcc (not on PATH; scripts/test.sh adds it)"
else
  echo "install-deps: nvcc not found. Install NVIDIA's CUDA toolkit (12.x or 13.x) and put" >&2
  echo "  its bin/ on PATH." >&2
  exit 1
fi

# The plots (perftest summary, and its test) need matplotlib in the python3 on
# PATH, which need not be the system one the Debian package serves.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] || [[ -n "${VIRTUAL_ENV:-}" ]]; then
    echo "install-deps: installing matplotlib for $(command -v python3)"
    python3 -m pip install --quiet matplotlib || echo "install-deps: pip could not install matplotlib; plots will be skipped" >&2
  else
    echo "install-deps: plots need matplotlib: python3 -m pip install --user matplotlib" >&2
  fi
fi

nccl_found=no
for dir in /usr/include /usr/local/include /usr/local/cuda/include ${NCCL_ROOT:+$NCCL_ROOT/include}; do
  [[ -f "$dir/nccl.h" ]] && nccl_found="$dir/nccl.h" && break
done
if [[ "$nccl_found" == no ]]; then
  echo "install-deps: NCCL headers not found: the NCCL bootstrap plugin will not be built" \
       "(optional; install libnccl-dev from NVIDIA's repository or set NCCL_ROOT)." >&2
else
  echo "install-deps: NCCL: $nccl_found"
fi
