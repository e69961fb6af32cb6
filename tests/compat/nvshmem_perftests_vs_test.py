#!/usr/bin/env python3
"""scripts/nvshmem_perftests_vs.py on logs made here in the form NVIDIA's
perftests print with NVSHMEM_MACHINE_READABLE_OUTPUT=1: rows are matched by
program, arguments, table, scope, size, metric and occurrence; the ratio is
time gshmem / NVSHMEM and rate NVSHMEM / gshmem; rows missing on one side,
non-perftests and unparsable values are left out; a run NVSHMEM's build did
not make is reported as such.
usage: nvshmem_perftests_vs_test.py SCRIPTS_DIR WORKDIR"""
import json
import os
import shutil
import subprocess
import sys

scripts, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)
logs, nv_logs = os.path.join(work, "logs"), os.path.join(work, "logs-nvshmem")
os.makedirs(logs)
os.makedirs(nv_logs)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def write(folder, name, text, rc=0):
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)
    with open(os.path.join(folder, name + ".rc"), "w") as f:
        f.write(f"{rc}\n")


def vs(*args):
    """Runs nvshmem_perftests_vs.py with these arguments."""
    return subprocess.run([sys.executable, os.path.join(scripts, "nvshmem_perftests_vs.py"), *args],
                          capture_output=True, text=True)


with open(os.path.join(work, "programs.tsv"), "w") as f:
    f.write("perftest/device/pt-to-pt/shmem_p_latency\tperftest/device/pt-to-pt/shmem_p_latency.cu\tperftest\t\n")
    f.write("perftest/device/pt-to-pt/shmem_put_bw\tperftest/device/pt-to-pt/shmem_put_bw.cu\tperftest\t\n")
    f.write("perftest/device/pt-to-pt/shmem_g_bw\tperftest/device/pt-to-pt/shmem_g_bw.cu\tperftest\t\n")
    f.write("examples/ring\texamples/ring.cu\texample\t\n")

lat = "perftest.device.pt-to-pt.shmem_p_latency"


def one_row(folder, size, us):
    """A shmem_p_latency log in `folder` with one row: `size` bytes, `us` microseconds."""
    os.makedirs(folder, exist_ok=True)
    write(folder, f"{lat}.np2.run.log", f"# mpirun -np 2 {lat}\n&&&& PERF shmem_p_latency___None___size__{size}___latency {us} -us\n")


def table_rows(folder, name):
    return [json.loads(line) for line in open(os.path.join(folder, name + ".jsonl"))]


def only_row(what, folder, name, *args):
    """Runs the script on `folder` with `args`; checks that it succeeded and
    that table `name` has exactly one row, which it returns (or None)."""
    p = vs(folder, *args)
    check(p.returncode == 0, f"{what}: exit status {p.returncode}: {p.stderr}")
    rows = table_rows(folder, name) if p.returncode == 0 else []
    check(len(rows) == 1, f"{what}: {len(rows)} rows, not one: {rows}")
    return rows[0] if len(rows) == 1 else {}
write(logs, f"{lat}.np2.run.log",
      "# mpirun -np 2 perftest.device.pt-to-pt.shmem_p_latency -t 512 -e 64K\n"
      "mype: 0 mype_node: 0 device name: GPU bus id: 1\n"
      "shmem_p_latency\n"
      "&&&& PERF shmem_p_latency___None___size__4___latency 1.000000 -us\n"
      "&&&& PERF shmem_p_latency___None___size__8___latency 3.000000 -us\n"
      "&&&& PERF shmem_p_latency___None___size__16___latency 2.000000 -us\n"
      "&&&& PERF shmem_p_latency___with _on_stream___size__4___latency 5.000000 -us\n"
      "&&&& PERF shmem_p_latency___None___size__32___latency nan -us\n")
write(nv_logs, f"{lat}.np2.run.log",
      "# mpirun -np 2 perftest.device.pt-to-pt.shmem_p_latency -t 512 -e 64K\n"
      "&&&& PERF shmem_p_latency___None___size__4___latency 2.000000 -us\n"
      "&&&& PERF shmem_p_latency___None___size__8___latency 2.000000 -us\n"
      "&&&& PERF shmem_p_latency___with _on_stream___size__4___latency 10.000000 -us\n"
      "&&&& PERF shmem_p_latency___None___size__32___latency 1.000000 -us\n")
bw = "perftest.device.pt-to-pt.shmem_put_bw"
for k, (g, n) in ((1, (40.0, 20.0)), (2, (10.0, 20.0))):
    write(logs, f"{bw}.np2.a{k}.run.log",
          f"# mpirun -np 2 {bw} {'--bidir ' if k == 2 else ''}-n 200\n"
          f"&&&& PERF shmem_put_bw___None___size__1024___BW {g} +GB/sec\n"
          f"&&&& PERF shmem_put_bw___None___size__1024___BW {g * 2} +GB/sec\n")
    write(nv_logs, f"{bw}.np2.a{k}.run.log",
          f"# mpirun -np 2 {bw} -n 200\n"
          f"&&&& PERF shmem_put_bw___None___size__1024___BW {n} +GB/sec\n"
          f"&&&& PERF shmem_put_bw___None___size__1024___BW {n} +GB/sec\n")
# gshmem's build ran; NVSHMEM's did not (no log).
write(logs, "perftest.device.pt-to-pt.shmem_g_bw.np2.run.log",
      "# mpirun -np 2 g_bw\n&&&& PERF shmem_g_bw___None___size__8___BW 1.0 +GB/sec\n")
# Not a perftest: ignored even with rows.
write(logs, "examples.ring.np2.run.log", "&&&& PERF ring___None___size__8___latency 1.0 -us\n")
write(nv_logs, "examples.ring.np2.run.log", "&&&& PERF ring___None___size__8___latency 9.0 -us\n")

out = os.path.join(work, "out")
p = vs(work, "--title", "made-up run", "--out-dir", out)
check(p.returncode == 0, f"exit status {p.returncode}: {p.stderr}")
rows = [json.loads(line) for line in open(os.path.join(out, "vs_nvshmem_perftests.jsonl"))]
by = {(r["program"], r["args_index"], r["scope"], r["size"], r["occurrence"]): r for r in rows}
check(len(rows) == 7, f"7 rows expected, got {len(rows)}: {rows}")
r = by.get(("shmem_p_latency", 1, "None", 4, 0))
check(r and r["ratio"] == 0.5 and r["better"] == "lower" and r["unit"] == "us", f"latency 4 B: {r}")
r = by.get(("shmem_p_latency", 1, "None", 8, 0))
check(r and r["ratio"] == 1.5, f"latency 8 B (behind): {r}")
check(("shmem_p_latency", 1, "None", 16, 0) not in by, "a row only gshmem printed is left out")
check(("shmem_p_latency", 1, "None", 32, 0) not in by, "a nan value is left out")
r = by.get(("shmem_p_latency", 1, "with _on_stream", 4, 0))
check(r and r["ratio"] == 0.5, f"a scope with spaces: {r}")
r = by.get(("shmem_put_bw", 1, "None", 1024, 0))
check(r and r["ratio"] == 0.5 and r["better"] == "higher", f"bandwidth ahead (NVSHMEM / gshmem): {r}")
r = by.get(("shmem_put_bw", 1, "None", 1024, 1))
check(r and r["ratio"] == 0.25, f"the second occurrence of a key: {r}")
r = by.get(("shmem_put_bw", 2, "None", 1024, 0))
check(r and r["ratio"] == 2.0 and r["args"] == "--bidir -n 200", f"args line 2 (behind): {r}")
check(not any(r["program"] == "ring" for r in rows), "examples are not compared")
md = open(os.path.join(out, "vs_nvshmem_perftests.md")).read()
check("7 rows compared: 5 at or ahead (ratio <= 1.00), 2 behind" in md, "the summary line")
check("| shmem_g_bw | `-` | 0 |" in md and "0 / not run" in md, "a run without NVSHMEM's log is named")
# Per program: min, median, max of its rows' ratios; with an even number of
# rows the median is the mean of the middle two (0.25 and 0.5 here).
check("| shmem_put_bw | `-n 200` | 2 | 0.25 | 0.38 | 0.50 | 0 |" in md, f"per program, an even count's median: {md}")
check("| shmem_p_latency | `-t 512 -e 64K` | 3 | 0.50 | 0.50 | 1.50 | 1 |" in md, f"per program, an odd count's median: {md}")
check(md.index("| shmem_put_bw | shmem_put_bw | None | 1 KiB | BW (GB/sec) | 20.000 | 10.000 | 2.00 |")
      < md.index("| shmem_p_latency | shmem_p_latency | None | 8 B | latency (us) | 2.000 | 3.000 | 1.50 |"),
      "rows behind are listed worst first")
check("made-up run" in p.stdout, "the table is printed")

# Rounds (--repeat 3): medians compared; a row behind is judged against the
# run-to-run spread (gshmem's best round worse than NVSHMEM's worst).
work3 = os.path.join(work, "rounds")
logs3, nv_logs3 = os.path.join(work3, "logs"), os.path.join(work3, "logs-nvshmem")
os.makedirs(logs3)
os.makedirs(nv_logs3)
shutil.copy(os.path.join(work, "programs.tsv"), work3)
lat_rounds = {  # size: (gshmem rounds, NVSHMEM rounds)
    4: ([1.1, 1.0, 1.2], [1.0, 1.05, 0.95]),  # median 1.1 vs 1.0: behind, within the spread
    8: ([2.0, 2.1, 2.2], [1.0, 1.1, 1.2]),    # behind beyond the spread
    16: ([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]),   # ahead
}
bw_rounds = ([10.0, 12.0, 11.0], [20.0, 19.0, 21.0])  # bandwidth, behind beyond the spread
for rnd in range(3):
    suffix = "" if rnd == 0 else f".r{rnd + 1}"
    for folder, side in ((logs3, 0), (nv_logs3, 1)):
        write(folder, f"{lat}.np2{suffix}.run.log",
              "# mpirun -np 2 perftest.device.pt-to-pt.shmem_p_latency -t 1\n" +
              "".join(f"&&&& PERF shmem_p_latency___None___size__{size}___latency {v[side][rnd]} -us\n"
                      for size, v in lat_rounds.items()),
              rc=3 if (side == 0 and rnd == 2) else 0)
        write(folder, f"{bw}.np2{suffix}.run.log",
              f"# mpirun -np 2 {bw}\n&&&& PERF shmem_put_bw___None___size__1024___BW {bw_rounds[side][rnd]} +GB/sec\n")
out3 = os.path.join(work3, "out")
p = vs(work3, "--out-dir", out3)
check(p.returncode == 0, f"rounds: exit status {p.returncode}: {p.stderr}")
rows3 = [json.loads(line) for line in open(os.path.join(out3, "vs_nvshmem_perftests.jsonl"))]
by3 = {(r["program"], r["size"]): r for r in rows3}
check(len(rows3) == 4, f"rounds: 4 rows expected (rounds merged), got {len(rows3)}")
r = by3.get(("shmem_p_latency", 4))
check(r and abs(r["ratio"] - 1.1) < 1e-9 and r["gshmem"] == 1.1 and r["nvshmem"] == 1.0 and not r["beyond_spread"]
      and r["gshmem_rounds"] == [1.1, 1.0, 1.2], f"rounds: medians, within the spread: {r}")
r = by3.get(("shmem_p_latency", 8))
check(r and abs(r["ratio"] - 2.1 / 1.1) < 1e-3 and r["beyond_spread"], f"rounds: beyond the spread: {r}")
r = by3.get(("shmem_p_latency", 16))
check(r and r["ratio"] == 0.5 and not r["beyond_spread"], f"rounds: ahead: {r}")
r = by3.get(("shmem_put_bw", 1024))
check(r and abs(r["ratio"] - 20.0 / 11.0) < 1e-3 and r["beyond_spread"], f"rounds: bandwidth beyond the spread: {r}")
md3 = open(os.path.join(out3, "vs_nvshmem_perftests.md")).read()
check("4 rows compared: 1 at or ahead (ratio <= 1.00), 3 behind; 2 of them beyond the run-to-run spread "
      "(gshmem's best of 3 rounds slower than NVSHMEM's worst), 1 within it" in md3, "rounds: the summary line")
check("Each pair ran 3 times" in md3, "rounds: the method is stated")
check("| no (NVSHMEM 0.950-1.050, gshmem 1.000-1.200) |" in md3, "rounds: the spread of a row within it")
check("| shmem_p_latency | `-t 1` | 3 |" in md3 and "| 3 / 0 |" in md3, "rounds: a later round's failure is shown")

# --variant remote: the runs with every peer remote come from logs-remote/ and
# logs-nvshmem-remote/ and go to vs_nvshmem_perftests_remote.*; the P2P logs
# beside them are not read.
work_r = os.path.join(work, "remote")
os.makedirs(work_r)
shutil.copy(os.path.join(work, "programs.tsv"), work_r)
one_row(os.path.join(work_r, "logs-remote"), 8, 30.0)
one_row(os.path.join(work_r, "logs-nvshmem-remote"), 8, 40.0)
one_row(os.path.join(work_r, "logs"), 4, 1.0)
row = only_row("remote", work_r, "vs_nvshmem_perftests_remote", "--variant", "remote")
check(row.get("size") == 8 and row.get("ratio") == 0.75, f"remote: the one row: {row}")
check(not os.path.exists(os.path.join(work_r, "vs_nvshmem_perftests.jsonl")), "remote: the P2P table is not written")

# --build NAME: gshmem's side from a --build-variant build (logs-build-NAME/),
# NVSHMEM's from logs-nvshmem/; written to vs_nvshmem_perftests_NAME.*.
one_row(os.path.join(work_r, "logs-build-p2p_only"), 4, 0.5)
one_row(os.path.join(work_r, "logs-nvshmem"), 4, 2.0)
row = only_row("build variant", work_r, "vs_nvshmem_perftests_p2p_only", "--build", "p2p_only")
check(row.get("size") == 4 and row.get("ratio") == 0.25, f"build variant: the one row: {row}")
# --between NAME: the default build against the NAME build, row by row,
# from the two tables: default ratio 1.0 / 2.0 = 0.5, variant 0.25, so 2.0.
p = vs(work_r)
check(p.returncode == 0, f"between: the default table: exit status {p.returncode}: {p.stderr}")
p = vs(work_r, "--between", "p2p_only")
check(p.returncode == 0, f"between: exit status {p.returncode}: {p.stderr}")
md_b = open(os.path.join(work_r, "vs_build_p2p_only.md")).read() if p.returncode == 0 else ""
check("**1 rows: median 2.000; 1 above 1.00, 0 below.**" in md_b, f"between: the summary line: {md_b}")
check("| shmem_p_latency | 1 | 2.000 | 2.000 | 2.000 |" in md_b, "between: the program's row")
p = vs(work_r, "--between", "nope")
check(p.returncode == 1 and "no " in p.stderr, f"between: a build without a table: {p.returncode} {p.stderr}")
p = vs(work_r, "--build", "../x")
check(p.returncode == 2 and "--build takes" in p.stderr, f"build variant: a bad name: {p.returncode} {p.stderr}")

# A collective perftest run at 2 and at 4 PEs (nvshmem_programs.sh --coll-np
# 2,4): a row per PE count, the count in the program's label past 2.
work_np = os.path.join(work, "pes")
os.makedirs(work_np)
with open(os.path.join(work_np, "programs.tsv"), "w") as f:
    f.write("perftest/device/coll/sync_latency\tperftest/device/coll/sync_latency.cu\tperftest\t\n")
sync = "perftest.device.coll.sync_latency"
# Its sync_all_device table (a loop count the program leaves undefined) is
# left out, for both PE counts, and listed with why.
for folder, times in (("logs", (1.0, 3.0)), ("logs-nvshmem", (2.0, 2.0))):
    os.makedirs(os.path.join(work_np, folder))
    for np_, us in zip((2, 4), times):
        write(os.path.join(work_np, folder), f"{sync}.np{np_}.run.log",
              f"# mpirun -np {np_} {sync}\n&&&& PERF sync_device___thread___size__256___latency {us} -us\n"
              f"&&&& PERF sync_all_device___thread___size__256___latency {us / 100} -us\n"
              f"&&&& PERF sync_all_device___warp___size__256___latency {us / 100} -us\n")
p = vs(work_np)
check(p.returncode == 0, f"PE counts: exit status {p.returncode}: {p.stderr}")
rows_np = table_rows(work_np, "vs_nvshmem_perftests") if p.returncode == 0 else []
by_np = {(r["program"], r["pes"]): r["ratio"] for r in rows_np}
check(by_np == {("sync_latency", 2): 0.5, ("sync_latency np=4", 4): 1.5}, f"PE counts: a row each: {by_np}")
md_np = open(os.path.join(work_np, "vs_nvshmem_perftests.md")).read() if p.returncode == 0 else ""
check("2 rows compared" in md_np and "## Left out" in md_np and
      "| sync_latency np=4 | sync_all_device | 2 | the program launches its sync_all kernels" in md_np,
      f"PE counts: sync_all_device left out and listed: {md_np}")

# Nothing in common: exit 1, saying so.
shutil.rmtree(nv_logs)
os.makedirs(nv_logs)
p = vs(work, "--out-dir", out)
check(p.returncode == 1 and "no row was printed by both builds" in p.stderr, f"nothing to compare: {p.returncode} {p.stderr}")
p = vs(os.path.join(work, "nope"))
check(p.returncode == 2 and "no such folder" in p.stderr, "a missing folder")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("nvshmem_perftests_vs.py: every check passed")
