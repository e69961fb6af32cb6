#!/usr/bin/env python3
"""Times every translation unit of a configured build, one compiler process per
source, and prints a table sorted by time (slowest first).

    scripts/compile_times.py BUILD_DIR [--jobs N] [--timeout S] [--filter REGEX]
                             [--nvcc-phases] [--json FILE]

BUILD_DIR must have been configured with CMAKE_EXPORT_COMPILE_COMMANDS=ON
(scripts/test.sh and scripts/device_run.sh do). Each command runs exactly as the
build would run it; objects go to a scratch folder so the build is untouched.
--jobs 1 gives one-core figures; more jobs finish sooner but contend for cores.
--nvcc-phases adds nvcc's own per-phase times (cudafe++, cicc, ptxas, host
compiler), which tells whether device or host compilation is the slow part.
"""
import argparse
import concurrent.futures as cf
import csv
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time


def load_commands(build_dir, pattern):
    path = os.path.join(build_dir, "compile_commands.json")
    if not os.path.exists(path):
        sys.exit(f"compile_times: {path} not found; configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
    with open(path) as f:
        entries = json.load(f)
    rx = re.compile(pattern) if pattern else None
    seen, out = set(), []
    for e in entries:
        src = os.path.relpath(e["file"], os.path.dirname(os.path.abspath(build_dir)))
        if rx and not rx.search(src):
            continue
        if src in seen:  # the same source in two targets: time it once
            continue
        seen.add(src)
        args = e.get("arguments") or shlex.split(e["command"])
        out.append((src, e["directory"], args))
    return out


def redirect_output(args, obj):
    args = list(args)
    for i, a in enumerate(args):
        if a == "-o" and i + 1 < len(args):
            args[i + 1] = obj
        elif a.startswith("-o") and len(a) > 2 and not a.startswith("-options"):
            args[i] = "-o" + obj
    # Dependency files are build bookkeeping: drop them.
    cleaned, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-MD", "-MMD") or a.startswith("-MF"):
            continue
        cleaned.append(a)
    return cleaned


def nvcc_phases(csv_path):
    phases = {}
    try:
        with open(csv_path) as f:
            for raw in csv.DictReader(f):
                row = {(k or "").strip(): (v or "").strip() for k, v in raw.items()}
                name = row.get("phase name", "")
                if not name:
                    continue
                name = f"{name} {row.get('arch', '')}".strip()
                unit = row.get("unit", "ms")
                value = float(row.get("metric") or 0)
                if unit == "s":
                    value *= 1000
                phases[name] = phases.get(name, 0.0) + value
    except (OSError, ValueError):
        pass
    return phases


def time_one(src, directory, args, timeout, with_phases, scratch):
    stem = re.sub(r"[^A-Za-z0-9_.]", "_", src)
    obj = os.path.join(scratch, stem + ".o")
    cmd = redirect_output(args, obj)
    phase_csv = None
    if with_phases and os.path.basename(cmd[0]).startswith("nvcc"):
        phase_csv = os.path.join(scratch, stem + ".time.csv")
        cmd = cmd[:1] + ["--time", phase_csv] + cmd[1:]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout)
        status = "ok" if proc.returncode == 0 else f"rc={proc.returncode}"
    except subprocess.TimeoutExpired:
        status = f"TIMEOUT>{timeout}s"
    elapsed = time.monotonic() - start
    phases = nvcc_phases(phase_csv) if phase_csv else {}
    return src, elapsed, status, phases


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build_dir")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--filter", default="")
    ap.add_argument("--nvcc-phases", action="store_true")
    ap.add_argument("--json", default="")
    a = ap.parse_args()

    commands = load_commands(a.build_dir, a.filter)
    if not commands:
        sys.exit("compile_times: no sources matched")
    print(f"compile_times: {len(commands)} sources, {a.jobs} at a time", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="gshmem-ct-") as scratch, \
            cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = [pool.submit(time_one, s, d, c, a.timeout, a.nvcc_phases, scratch) for s, d, c in commands]
        for fut in cf.as_completed(futures):
            src, elapsed, status, phases = fut.result()
            print(f"  {elapsed:7.1f} s  {status:12s} {src}", flush=True)
            rows.append({"source": src, "seconds": round(elapsed, 2), "status": status,
                         "phases_ms": {k: round(v) for k, v in phases.items()}})
    rows.sort(key=lambda r: -r["seconds"])
    print("\nseconds  status        source")
    for r in rows:
        line = f"{r['seconds']:7.1f}  {r['status']:12s}  {r['source']}"
        if r["phases_ms"]:
            top = sorted(r["phases_ms"].items(), key=lambda kv: -kv[1])[:4]
            line += "   [" + ", ".join(f"{k} {v / 1000:.1f}s" for k, v in top) + "]"
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
