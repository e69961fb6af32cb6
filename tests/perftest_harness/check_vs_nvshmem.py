#!/usr/bin/env python3
"""The same-run gshmem vs NVSHMEM comparison (scripts/bench.sh --vs-nvshmem),
on sample JSON lines, without a GPU: summarize.py pairs the NVSHMEM-API
benchmark's two builds row by row (ratio gshmem / NVSHMEM, inverted for
bandwidths; the last row of a rerun wins), lists rows only one build
measured, writes the pairs as JSON lines, and never lets those rows stand in
for gshmem's own perftests; plot_results.py draws vs_nvshmem.png (when
matplotlib is installed). usage: check_vs_nvshmem.py SCRIPTS_DIR SAMPLE.jsonl WORKDIR"""
import json
import os
import shutil
import subprocess
import sys

scripts, sample, work = sys.argv[1:4]
sys.path.insert(0, scripts)
import summarize  # noqa: E402

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
shutil.copy(sample, os.path.join(work, "sample.jsonl"))


def check(cond, what, text=""):
    if not cond:
        print(text)
        raise AssertionError(what)


# The pairing itself.
rows = summarize.load_rows(work)
pairs, only_g, only_n = summarize.compare_implementations(rows)
by_name = {(p["name"], p.get("n", p.get("size"))): p for p in pairs}
check(len(pairs) == 5, f"5 rows measured by both builds, got {len(pairs)}: {list(by_name)}")
check(abs(by_name[("uint64_p+wait_until", 8)]["ratio_gshmem_to_nvshmem"] - 0.78 / 1.3) < 1e-6,
      "gshmem / NVSHMEM of the same row (not gshmem's own perftest's 0.7)")
check(by_name[("wait_until_all", 8192)]["gshmem"] == 118.0, "the last row of a rerun wins")
check(abs(by_name[("putmem", 1048576)]["ratio_gshmem_to_nvshmem"] - 350.0 / 300.0) < 1e-6,
      "bandwidth: inverted, so above 1 means gshmem does worse")
check([r["name"] for r in only_n] == ["wait_until_any[random]", "test_any[random]"],
      f"rows only NVSHMEM measured: {[r['name'] for r in only_n]}")
check(only_g == [], "no row only gshmem measured")
check(summarize.compare_implementations([r for r in rows if r["binary"] != "nvshmem_api@nvshmem"])[0] == [],
      "no pairs without the NVSHMEM build")

# The summary and the JSON lines.
subprocess.run([sys.executable, os.path.join(scripts, "summarize.py"), work], check=True)
summary = open(os.path.join(work, "summary.md")).read()
check("## gshmem vs NVSHMEM, same source, same run" in summary, "comparison section", summary)
check("| uint64_p+wait_until | 2 | 8 B | thread | one_way | 0.780 us | 1.300 us | 0.60 |" in summary,
      "comparison row", summary)
check("| wait_until_all | 2 | n=8192 | thread | round_trip | 118.000 us | 1,501 us | 0.08 |" in summary,
      "rerun row", summary)
check("Measured by only the NVSHMEM build" in summary and "test_any[random] n=1024" in summary,
      "unpaired rows named", summary)
target = [ln for ln in summary.splitlines() if ln.startswith("| one-way uint64_p + wait_until |")]
check(len(target) == 1 and "| 0.700 |" in target[0],
      "the targets table reads gshmem's own perftest, not the NVSHMEM-API rows", summary)
without = summary.split("## Figures without a floor")[1].split("## gshmem vs NVSHMEM")[0] \
    if "## Figures without a floor" in summary else ""
check("nvshmem_api@" not in without, "the comparison rows stay out of the other tables", summary)
lines = [json.loads(ln) for ln in open(os.path.join(work, "vs_nvshmem.jsonl")) if ln.strip()]
check(len(lines) == 5 and all({"name", "gshmem", "nvshmem", "ratio_gshmem_to_nvshmem"} <= ln.keys()
                              for ln in lines), "vs_nvshmem.jsonl holds the pairs")
check(len(summarize.load_rows(work)) == len(rows), "vs_nvshmem.jsonl is not read back as perftest rows")

# The plot.
try:
    import matplotlib  # noqa: F401
except ImportError:
    print("summary and JSON lines checked; matplotlib missing, vs_nvshmem.png not checked")
    sys.exit(0)
subprocess.run([sys.executable, os.path.join(scripts, "plot_results.py"), work], check=True)
png = os.path.join(work, "vs_nvshmem.png")
check(os.path.exists(png), "vs_nvshmem.png made")
with open(png, "rb") as f:
    check(f.read(8) == b"\x89PNG\r\n\x1a\n", "vs_nvshmem.png is a PNG")
check(os.path.getsize(png) > 5000, "vs_nvshmem.png is suspiciously small")
check(not os.path.exists(os.path.join(work, "wait_any.png")),
      "the NVSHMEM-API rows do not feed gshmem's own plots")
print(f"{len(pairs)} pairs summarized, written and plotted")
