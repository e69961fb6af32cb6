#!/usr/bin/env python3
"""scripts/bench_ab.sh end to end without a GPU, over two stub trees whose
scripts/bench.sh writes one latency row (A 0.70 us, B 0.80 us): the output
folder gets only files (ab.md, ab.jsonl, logs, rounds.tar.gz; no build or
round folders), the rounds and builds run with OUT unset, the temporary
work folder is removed, and the table reads B against A.
usage: check_bench_ab_script.py SCRIPTS_DIR WORKDIR"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile

scripts, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

STUB = r"""#!/usr/bin/env bash
# A stand-in for scripts/bench.sh: builds nothing, measures nothing.
if [ -n "${OUT:-}" ]; then echo "stub bench.sh: OUT is set ($OUT)" >&2; exit 3; fi
build_dir="" results_dir="" build_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift ;;
    --results-dir) results_dir=$2; shift ;;
    --build-only) build_only=1 ;;
  esac
  shift
done
if [ "$build_only" = 1 ]; then mkdir -p "$build_dir" && touch "$build_dir/built"; exit 0; fi
[ -f "$build_dir/built" ] || { echo "stub bench.sh: not built in $build_dir" >&2; exit 4; }
value=$(cat "$(dirname "$0")/../VALUE")
mkdir -p "$results_dir/20261125T000000Z"
printf '{"binary":"gshmem_perf_latency","name":"uint64_p+wait_until","pes":2,"size":8,"threads":1,"metric":"one_way","unit":"us","better":"lower","value":%s,"min":%s,"max":%s,"floor":0.65,"ratio":1.0}\n' \
  "$value" "$value" "$value" > "$results_dir/20261125T000000Z/latency-np2.jsonl"
"""


def tree(name, value):
    root = os.path.join(work, name)
    os.makedirs(os.path.join(root, "scripts"))
    with open(os.path.join(root, "VALUE"), "w") as f:
        f.write(value)
    path = os.path.join(root, "scripts", "bench.sh")
    with open(path, "w") as f:
        f.write(STUB)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return root


def check(cond, what):
    if not cond:
        raise AssertionError(what)


a, b = tree("tree-a", "0.70"), tree("tree-b", "0.80")
out, tmp = os.path.join(work, "out"), os.path.join(work, "tmp")
os.makedirs(tmp)
env = dict(os.environ, OUT=out, TMPDIR=tmp)
run = subprocess.run(["bash", os.path.join(scripts, "bench_ab.sh"), "--rounds", "2", "--label-a", "before",
                      "--label-b", "after", a, b], env=env, capture_output=True, text=True)
print(run.stdout + run.stderr)
check(run.returncode == 0, f"bench_ab.sh exit status {run.returncode}")
names = sorted(os.listdir(out))
check(all(os.path.isfile(os.path.join(out, n)) for n in names), f"only files in the output folder: {names}")
for n in ("ab.md", "ab.jsonl", "rounds.tar.gz", "build-a.log", "build-b.log", "a-round1.log", "b-round2.log"):
    check(n in names, f"{n} in the output folder: {names}")
with tarfile.open(os.path.join(out, "rounds.tar.gz")) as t:
    members = t.getnames()
check(any(m.startswith("a/round2/") and m.endswith("latency-np2.jsonl") for m in members), f"rounds packed: {members}")
check(os.listdir(tmp) == [], f"the temporary work folder is removed: {os.listdir(tmp)}")
rows = [json.loads(l) for l in open(os.path.join(out, "ab.jsonl"))]
check(len(rows) == 1 and abs(rows[0]["ratio"] - 0.80 / 0.70) < 1e-9, f"one row, after / before: {rows}")
check(rows[0]["beyond_spread"] is True, "two rounds a side, disjoint: beyond the spread")
print("bench_ab.sh: ok")
