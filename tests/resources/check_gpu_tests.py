#!/usr/bin/env python3
"""Checks the GPU tests' resource allocation without a GPU:
 1. every test labelled gpu (ctest --show-only=json-v1 of BUILD_DIR, read
    without GSHMEM_CTEST_GPUS, so each asks for all the GPUs it needs) has
    RESOURCE_GROUPS "<n>,gpus:1" and a command that starts with the wrapper,
    and no CPU test asks for GPUs;
 2. with GSHMEM_CTEST_GPUS=2 a test of 4 GPUs asks for 2, and with 0 for none;
 3. the wrapper turns CTEST_RESOURCE_GROUP_* into CUDA_VISIBLE_DEVICES,
    through GSHMEM_CTEST_GPU_LIST when set, and refuses a group that is not
    a GPU.
usage: check_gpu_tests.py CTEST BUILD_DIR WRAPPER"""
import json
import os
import subprocess
import sys


def tests_of(ctest, build, gpus):
    env = dict(os.environ)
    env.pop("GSHMEM_CTEST_GPUS", None)
    if gpus is not None:
        env["GSHMEM_CTEST_GPUS"] = str(gpus)
    out = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, env=env, check=True,
                         capture_output=True, text=True).stdout
    found = {}
    for t in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        found[t["name"]] = (t.get("command") or [], props.get("LABELS", []), props.get("RESOURCE_GROUPS"))
    return found


def gpus_asked(req):
    """RESOURCE_GROUPS of json-v1: [{"requirements": [{".type": "gpus", "slots": 1}]}, ...]."""
    if not req:
        return 0
    n = 0
    for group in req:
        for r in group.get("requirements", []):
            if r.get(".type") == "gpus":
                n += 1
    return n


def main():
    ctest, build, wrapper = sys.argv[1:4]
    problems = []
    full = tests_of(ctest, build, None)
    gpu_tests = {name: v for name, v in full.items() if "gpu" in v[1]}
    if not gpu_tests:
        print("check_gpu_tests: no test labelled gpu (a configuration without GPU tests): nothing to check")
    for name, (cmd, labels, req) in sorted(full.items()):
        asked = gpus_asked(req)
        if "gpu" in labels:
            if asked < 1:
                problems.append(f"{name}: labelled gpu but asks CTest for no GPU (gshmem_gpu_test)")
            if not any(os.path.basename(c) == "gpu_slots.sh" for c in cmd[:2]):
                problems.append(f"{name}: labelled gpu but not run through gpu_slots.sh: {cmd[:3]}")
        elif asked:
            problems.append(f"{name}: not labelled gpu but asks for {asked} GPU(s)")
    needs = {name: gpus_asked(v[2]) for name, v in gpu_tests.items()}
    capped = tests_of(ctest, build, 2)
    none = tests_of(ctest, build, 0)
    for name, need in needs.items():
        if gpus_asked(capped[name][2]) != min(need, 2):
            problems.append(f"{name}: asks for {gpus_asked(capped[name][2])} GPUs with GSHMEM_CTEST_GPUS=2 "
                            f"(needs {need})")
        if gpus_asked(none[name][2]) != 0:
            problems.append(f"{name}: asks for GPUs with GSHMEM_CTEST_GPUS=0")

    def wrap(env_extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith("CTEST_RESOURCE_GROUP")}
        env.pop("GSHMEM_CTEST_GPU_LIST", None)
        env.update(env_extra)
        p = subprocess.run(["sh", wrapper, "sh", "-c", 'echo "cvd=${CUDA_VISIBLE_DEVICES-unset}"'], env=env,
                           capture_output=True, text=True)
        return p.returncode, p.stdout.strip()

    two = {"CTEST_RESOURCE_GROUP_COUNT": "2", "CTEST_RESOURCE_GROUP_0": "gpus",
           "CTEST_RESOURCE_GROUP_0_GPUS": "id:3,slots:1", "CTEST_RESOURCE_GROUP_1": "gpus",
           "CTEST_RESOURCE_GROUP_1_GPUS": "id:1,slots:1", "CUDA_VISIBLE_DEVICES": "0,1"}
    cases = [(two, (0, "cvd=3,1")),
             (dict(two, GSHMEM_CTEST_GPU_LIST="4,5,6,7"), (0, "cvd=7,5")),
             ({"CUDA_VISIBLE_DEVICES": "2"}, (0, "cvd=2")),
             ({"CTEST_RESOURCE_GROUP_COUNT": "1", "CTEST_RESOURCE_GROUP_0_GPUS": ""}, (1, ""))]
    for env_extra, expect in cases:
        got = wrap(env_extra)
        if got != expect:
            problems.append(f"gpu_slots.sh with {env_extra}: got {got}, expected {expect}")
    for p in problems:
        print("check_gpu_tests:", p)
    print(f"check_gpu_tests: {len(gpu_tests)} GPU tests, {len(full) - len(gpu_tests)} others; "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
