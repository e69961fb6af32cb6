#!/usr/bin/env python3
"""The remote rows of the benchmark (scripts/bench.sh --remote), on sample
JSON lines, without a GPU: summarize.py puts each "...[remote]" row beside
the P2P row of the same benchmark, size, issuer and metric (remote / P2P for
both latency and bandwidth), says "-" where the P2P run has no such row, and
keeps remote rows out of the list of figures without a floor; the rows of
the run under mpirun's default binding ("...[remote,bound]") get a column
of their own, and so do the rows of the run in RMA mode ("...[remote,rma]").
usage: check_remote_rows.py SCRIPTS_DIR WORKDIR"""
import json
import os
import shutil
import subprocess
import sys

scripts, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def row(name, size, threads, metric, value, unit="us", floor=None):
    r = {"binary": "gshmem_perf_latency", "name": name, "pes": 2, "size_key": "size", "size": size,
         "threads": threads, "metric": metric, "value": value, "min": value, "max": value, "unit": unit}
    if floor is not None:
        r.update(floor=floor, ratio=value / floor)
    return r


rows = [row("putmem_signal", 8, 1, "one_way", 0.9, floor=0.8),
        row("putmem_signal[remote]", 8, 1, "one_way", 18.0),
        row("putmem_signal[remote]", 64, 1, "one_way", 19.0),          # no P2P row of this size
        row("putmem_block", 1048576, 1024, "bandwidth", 300.0, "GB/s", 320.0),
        row("putmem_block[remote]", 1048576, 1024, "bandwidth", 6.0, "GB/s")]
with open(os.path.join(work, "rows.jsonl"), "w") as f:
    f.write("".join(json.dumps(r) + "\n" for r in rows))
subprocess.run([sys.executable, os.path.join(scripts, "summarize.py"), work], check=True)
summary = open(os.path.join(work, "summary.md")).read()


def check(cond, what):
    if not cond:
        print(summary)
        raise AssertionError(what)


check("## Remote peers beside P2P (same run)" in summary, "the remote section")
section = summary.split("## Remote peers beside P2P (same run)")[1]
check("| putmem_signal | 2 | 8 B | thread | one_way | 0.900 us | 18.000 us | 20.00 |" in section,
      "latency: remote beside P2P, remote / P2P")
check("| putmem_signal | 2 | 64 B | thread | one_way | - | 19.000 us | - |" in section,
      "a remote row without a P2P row says '-'")
bw = [ln for ln in section.splitlines() if ln.startswith("| putmem_block |")]
check(len(bw) == 1 and bw[0].endswith("| 0.02 |"), "bandwidth: remote / P2P (6 / 300)")
without = summary.split("## Figures without a floor")[1] if "## Figures without a floor" in summary else ""
check("[remote]" not in without, "remote rows are not repeated among the figures without a floor")

# With the bound rows (bench.sh --remote under mpirun's default binding): a
# column of their own, matched on benchmark, size, issuer and metric.
rows.append(row("putmem_signal[remote,bound]", 8, 1, "one_way", 21.0))
rows.append(row("putmem_signal[remote,bound]", 4096, 1, "one_way", 25.0))  # no unbound row of this size
with open(os.path.join(work, "rows.jsonl"), "w") as f:
    f.write("".join(json.dumps(r) + "\n" for r in rows))
subprocess.run([sys.executable, os.path.join(scripts, "summarize.py"), work], check=True)
summary = open(os.path.join(work, "summary.md")).read()
section = summary.split("## Remote peers beside P2P (same run)")[1]
check("| remote / P2P | remote, bound |" in section, "the bound column")
check("| putmem_signal | 2 | 8 B | thread | one_way | 0.900 us | 18.000 us | 20.00 | 21.000 us |" in section,
      "bound beside remote")
check("| putmem_signal | 2 | 64 B | thread | one_way | - | 19.000 us | - | - |" in section,
      "a remote row without a bound row says '-'")
check("| putmem_signal | 2 | 4 KiB | thread | one_way | - | - | - | 25.000 us |" in section,
      "a bound row without a remote row")
without = summary.split("## Figures without a floor")[1] if "## Figures without a floor" in summary else ""
check("[remote,bound]" not in without, "bound rows are not repeated among the figures without a floor")

# With the RMA-mode rows as well: a third column, after the bound one.
rows.append(row("putmem_signal[remote,rma]", 8, 1, "one_way", 9.0))
rows.append(row("putmem_block[remote,rma]", 1048576, 1024, "bandwidth", 54.0, "GB/s"))
rows.append(row("putmem_signal[remote,rma]", 512, 1, "one_way", 11.0))  # in no other run
with open(os.path.join(work, "rows.jsonl"), "w") as f:
    f.write("".join(json.dumps(r) + "\n" for r in rows))
subprocess.run([sys.executable, os.path.join(scripts, "summarize.py"), work], check=True)
summary = open(os.path.join(work, "summary.md")).read()
section = summary.split("## Remote peers beside P2P (same run)")[1]
check("| remote / P2P | remote, bound | remote, RMA |" in section, "the RMA column after the bound one")
check("| putmem_signal | 2 | 8 B | thread | one_way | 0.900 us | 18.000 us | 20.00 | 21.000 us | 9.000 us |" in section,
      "RMA beside bound and remote")
bw = [ln for ln in section.splitlines() if ln.startswith("| putmem_block |")]
check(len(bw) == 1 and bw[0].endswith("| - | 54.000 GB/s |"), "bandwidth: no bound row, the RMA one")
check("| putmem_signal | 2 | 4 KiB | thread | one_way | - | - | - | 25.000 us | - |" in section,
      "a bound-only row has '-' for RMA")
check("| putmem_signal | 2 | 512 B | thread | one_way | - | - | - | - | 11.000 us |" in section,
      "an RMA-only row")
check(section.count("| putmem_signal | 2 | 512 B |") == 1, "an RMA-only row once")
without = summary.split("## Figures without a floor")[1] if "## Figures without a floor" in summary else ""
check("[remote,rma]" not in without, "RMA rows are not repeated among the figures without a floor")
print("remote rows: ok")
