#!/usr/bin/env python3
"""The name census against the headers of NVIDIA's nvidia-nvshmem wheel, as
pip downloads it from PyPI (no GPU, no NVSHMEM install): every function the
wheel's <nvshmem.h> and <nvshmemx.h> declare must be provided, and every
name of the checked-in list (EXPECT, made from the same wheel) still.
usage: nvshmem_wheel_census.py SCRIPTS_DIR WORKDIR EXPECT VERSION BUILD_DIR NVCC ARCH

The wheel is downloaded once into WORKDIR/wheel (kept there for the next
run). Exit 0: the census passed; 1: a name went missing or a function is
not provided (each named); 77 (the test's skip code): pip could not
download the wheel (no network, PyPI unreachable), saying why; 2: anything
else (no pip included)."""
import glob
import os
import re
import subprocess
import sys

scripts, work, expect, version, build_dir, nvcc, arch = sys.argv[1:8]
package = "nvidia-nvshmem-cu12"
wheel_dir = os.path.join(work, "wheel")
os.makedirs(wheel_dir, exist_ok=True)
pattern = os.path.join(wheel_dir, "nvidia_nvshmem_cu12-%s-*.whl" % version)
wheels = glob.glob(pattern)
if not wheels:
    # No pip is a broken setup, not a missing network: it fails, saying so.
    try:
        has_pip = subprocess.run([sys.executable, "-m", "pip", "--version"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True).returncode == 0
    except OSError:
        has_pip = False
    if not has_pip:
        print("nvshmem_wheel_census: %s has no pip (python3 -m pip); install it (python3-pip) to download "
              "%s==%s" % (sys.executable, package, version))
        sys.exit(2)
    # The wheel is py3-none-manylinux: any Python on any Linux host can take
    # it; the platform is named so that pip does not refuse it elsewhere.
    # Bounded retries: where no registry answers (a GPU machine), the skip comes in seconds.
    command = [sys.executable, "-m", "pip", "download", "--retries", "1", "--timeout", "30", "--no-deps", "--only-binary=:all:",
               "--platform", "manylinux2014_x86_64", "--platform", "manylinux_2_17_x86_64",
               "-d", wheel_dir, "%s==%s" % (package, version)]
    try:
        got = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        output, code = got.stdout, got.returncode
    except (OSError, subprocess.TimeoutExpired) as e:
        output, code = str(e), -1
    wheels = glob.glob(pattern)
    if code != 0 or not wheels:
        tail = "\n".join(output.strip().splitlines()[-6:])
        print("SKIPPED: cannot download %s==%s from PyPI (pip exit %s):\n%s" % (package, version, code, tail))
        sys.exit(77)
wheel = sorted(wheels)[-1]
print("census against %s" % os.path.basename(wheel), flush=True)
census = subprocess.run([sys.executable, os.path.join(scripts, "nvshmem_names.py"), wheel, "--expect", expect,
                         "--list", "missing", "refused", "--build-dir", build_dir, "--nvcc", nvcc, "--arch", arch,
                         "--work", os.path.join(work, "census")],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(census.stdout)
if census.returncode == 2:
    sys.exit(2)
m = re.search(r"^\s*function\s+(\d+) names: provided\s+(\d+),", census.stdout, re.MULTILINE)
if not m:
    print("nvshmem_wheel_census: no function count in the census's output")
    sys.exit(2)
functions, provided = int(m.group(1)), int(m.group(2))
verdict = 0 if census.returncode == 0 else 1
if provided != functions:
    print("census: %d of NVSHMEM %s's %d functions are not provided (listed above)"
          % (functions - provided, version, functions))
    verdict = 1
print("census: NVSHMEM %s: %d of %d functions provided: %s"
      % (version, provided, functions, "PASSED" if verdict == 0 else "FAILED"))
sys.exit(verdict)
