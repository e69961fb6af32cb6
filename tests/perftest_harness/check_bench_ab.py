#!/usr/bin/env python3
"""scripts/bench_ab.py on sample rounds, without a GPU: two sides of two
rounds each; the row is identified by every field but its figures, the
ratio reads B against A (time B / A, rate A / B), 'beyond the spread' needs
disjoint rounds, the floors get their own ratio, and rows one side lacks are
counted. usage: check_bench_ab.py SCRIPTS_DIR WORKDIR"""
import json
import os
import shutil
import subprocess
import sys

scripts, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)


def write(side, rnd, rows):
    d = os.path.join(work, side, f"round{rnd}", "20261125T000000Z")
    os.makedirs(d)
    with open(os.path.join(d, "latency-np2.jsonl"), "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rows))


def lat(name, value, floor, size=8):
    return {"binary": "gshmem_perf_latency", "name": name, "pes": 2, "size": size, "threads": 1,
            "metric": "one_way", "unit": "us", "better": "lower", "value": value, "min": value,
            "max": value, "floor": floor, "ratio": value / floor}


def bw(value):
    return {"binary": "gshmem_perf_bw", "name": "putmem_block", "pes": 2, "size": 1 << 20, "threads": 1024,
            "metric": "bandwidth", "unit": "GB/s", "better": "higher", "value": value, "floor": 320.0}


write("a", 1, [lat("uint64_p+wait_until", 0.70, 0.65), lat("noisy", 1.0, 1.0), bw(300.0)])
write("a", 2, [lat("uint64_p+wait_until", 0.72, 0.66), lat("noisy", 1.2, 1.0), bw(310.0), lat("only_a", 1, 1)])
write("b", 1, [lat("uint64_p+wait_until", 0.80, 0.65), lat("noisy", 1.1, 1.0), bw(200.0)])
write("b", 2, [lat("uint64_p+wait_until", 0.82, 0.66), lat("noisy", 1.15, 1.0), bw(220.0)])
out = os.path.join(work, "ab.md")
subprocess.run([sys.executable, os.path.join(scripts, "bench_ab.py"), os.path.join(work, "a"),
                os.path.join(work, "b"), "--label-a", "before", "--label-b", "after", "--out", out, "--plot"],
               check=True)
text = open(out).read()
rows = {json.loads(l)["row"]: json.loads(l) for l in open(os.path.join(work, "ab.jsonl"))}


def check(cond, what):
    if not cond:
        print(text)
        raise AssertionError(what)


p = rows["gshmem_perf_latency | uint64_p+wait_until 8 x1 | one_way"]
check(abs(p["ratio"] - 0.81 / 0.71) < 1e-9, "time: median after / median before")
check(p["beyond_spread"] is True, "disjoint rounds are beyond the spread")
check(abs(p["floor_ratio"] - 1.0) < 1e-9, "the floors' own ratio")
n = rows["gshmem_perf_latency | noisy 8 x1 | one_way"]
check(n["beyond_spread"] is False, "overlapping rounds are within the spread")
b = rows["gshmem_perf_bw | putmem_block 1048576 x1024 | bandwidth"]
check(abs(b["ratio"] - 305.0 / 210.0) < 1e-9, "rate: before / after, above 1 when after is slower")
check(list(rows)[0].startswith("gshmem_perf_bw"), "worst first")
check("**3 rows: median ratio" in text and "2 slower beyond the spread, 0 faster" in text, "the summary line")
check("1 rows were measured by one side only" in text, "rows of one side are counted")
try:
    import matplotlib  # noqa: F401
    png = os.path.join(work, "ab.png")
    check(os.path.isfile(png) and os.path.getsize(png) > 1000, "--plot writes ab.png")
except ImportError:
    print("bench_ab: matplotlib missing, ab.png not checked")
print("bench_ab: ok")
