#!/usr/bin/env python3
"""The report of scripts/nvshmem_programs.sh, on logs made here in the formats
nvcc, g++, ld and the run step write: which programs built, which NVSHMEM
names the others miss (and on which side), grouped by feature, and what the
runs said. usage: nvshmem_programs_report_test.py SCRIPTS_DIR WORKDIR"""
import os
import shutil
import subprocess
import sys

scripts, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)
logs = os.path.join(work, "logs")
os.makedirs(logs)


def write(name, text):
    with open(os.path.join(logs, name), "w") as f:
        f.write(text)


programs = [
    ("perftest/device/a_bw", "perftest/device/a_bw.cu", "perftest", ""),
    ("perftest/device/b_latency", "perftest/device/b_latency.cu", "perftest", ""),
    ("perftest/host/c_host", "perftest/host/c_host.cpp", "perftest", ""),
    ("examples/ring", "examples/ring.cu", "example", ""),
    ("examples/linkfail", "examples/linkfail.cu", "example", ""),
    ("examples/slow", "examples/slow.cu", "example", ""),
    ("examples/pick", "examples/pick.cu", "example", ""),
    ("examples/sub/big", "examples/sub/big.cu", "left_out", "needs CUTLASS"),
]
with open(os.path.join(work, "programs.tsv"), "w") as f:
    for p in programs:
        f.write("\t".join(p) + "\n")

# The helper: nvcc (EDG) messages.
write("perftest_helper.compile.log",
      'utils.cu(218): error: identifier "NVSHMEMX_TEAM_NODE" is undefined\n'
      '      mype_node = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);\n'
      '                                     ^\n'
      'utils.cu(218): error: identifier "nvshmem_team_my_pe" is undefined\n'
      '2 errors detected in the compilation of "utils.cu".\n')
write("perftest_helper.compile.log.rc", "1\n")
# a_bw: its own source compiles; only the helper fails.
write("perftest.device.a_bw.obj.compile.log", "")
write("perftest.device.a_bw.obj.compile.log.rc", "0\n")
# b_latency: an undefined routine, and a device routine called from host code
# (EDG names static functions by an internal mangled name).
write("perftest.device.b_latency.obj.compile.log",
      'b_latency.cu(40): error: identifier "nvshmemx_collective_launch" is undefined\n'
      '      status = nvshmemx_collective_launch((const void *)k, 1, 1, args, 0, 0);\n'
      '               ^\n'
      'b_latency.cu(52): error: calling a __device__ function("_ZN32_INTERNAL_0ad81489_4_t_cu__Z1kPi'
      '14nvshmem_putmemE1?1?1?") from a __host__ function("main") is not allowed\n'
      '      nvshmem_putmem(d, s, 8, 1);\n'
      '      ^\n'
      'b_latency.cu(60): error: identifier "MPI_Comm_rank_x" is undefined\n')
write("perftest.device.b_latency.obj.compile.log.rc", "2\n")
# c_host: g++ messages (a .cpp source is host code).
write("perftest.host.c_host.obj.compile.log",
      "c_host.cpp:10:5: error: 'nvshmem_getmem' was not declared in this scope\n"
      "c_host.cpp:11:5: error: 'nvshmemx_putmem_on_stream' was not declared in this scope\n"
      "c_host.cpp:12:5: error: 'nvshmem_team_t' does not name a type\n"
      "c_host.cpp:2:10: fatal error: shmem.h: No such file or directory\n")
write("perftest.host.c_host.obj.compile.log.rc", "1\n")
# ring: built and ran on 2 and 4 PEs.
write("examples.ring.obj.compile.log", "")
write("examples.ring.obj.compile.log.rc", "0\n")
write("examples.ring.link.log", "")
write("examples.ring.link.log.rc", "0\n")
write("examples.ring.built", "/x/bin/examples.ring\n")
# (A machine-readable figure row after it, as in a --vs-nvshmem run, is not what the program says.)
write("examples.ring.np2.run.log", "# mpirun -np 2 examples.ring\n0: received message 1\n1: received message 0\n"
      "&&&& PERF ring___None___size__8___latency 1.0 -us\n")
write("examples.ring.np2.run.log.rc", "0\n")
write("examples.ring.np4.run.log", "# mpirun -np 4 examples.ring\nPE 2: result mismatch at 3\n")
write("examples.ring.np4.run.log.rc", "1\n")
# linkfail: compiles, fails to link.
write("examples.linkfail.obj.compile.log", "")
write("examples.linkfail.obj.compile.log.rc", "0\n")
write("examples.linkfail.link.log",
      "/usr/bin/ld: linkfail.o: in function `main':\n"
      "linkfail.cu:(.text+0x1d): undefined reference to `nvshmemx_hostlib_init_attr'\n"
      "collect2: error: ld returned 1 exit status\n")
write("examples.linkfail.link.log.rc", "1\n")
# slow: built, timed out.
write("examples.slow.obj.compile.log.rc", "0\n")
write("examples.slow.link.log.rc", "0\n")
write("examples.slow.built", "/x/bin/examples.slow\n")
write("examples.slow.np2.run.log", "# mpirun -np 2 examples.slow\nstarting\n")
write("examples.slow.np2.run.log.rc", "124\n")
# pick: selects GPU <node-local PE> itself; the machine has one GPU.
write("examples.pick.obj.compile.log.rc", "0\n")
write("examples.pick.link.log.rc", "0\n")
write("examples.pick.built", "/x/bin/examples.pick\n")
write("examples.pick.np2.run.log", "# mpirun -np 2 examples.pick\n"
      "[pick.cu:76] cuda failed with invalid device ordinal \nerror: peer gone\n")
write("examples.pick.np2.run.log.rc", "124\n")

subprocess.run([sys.executable, os.path.join(scripts, "nvshmem_programs_report.py"), work,
                "--title", "sample"], check=True, stdout=subprocess.DEVNULL)
report = open(os.path.join(work, "report.md")).read()
rows = {line.split(" | ")[0].lstrip("| "): line for line in report.splitlines()
        if line.startswith("| ") and " | " in line}


def row(name):
    assert name in rows, f"no row for {name}:\n{report}"
    return rows[name]


def check(cond, what):
    if not cond:
        print(report)
        raise AssertionError(what)


check("3 of 7 programs built; 1 left out" in report, "counts")
check("did NOT compile; it misses 2 NVSHMEM name(s)" in report, "helper state")
check("| no (helper) |" in row("perftest/device/a_bw"), "a_bw fails only through the helper")
check("its own source compiles" in row("perftest/device/a_bw"), "a_bw's own source compiles")
b = row("perftest/device/b_latency")
check("| no (compile) |" in b and "nvshmemx_collective_launch" in b and "nvshmem_putmem (host)" in b,
      "b_latency: undefined name and the host call, demangled")
check("MPI_Comm_rank_x" not in b, "non-NVSHMEM names are not counted as missing NVSHMEM names")
c = row("perftest/host/c_host")
check("nvshmem_getmem (host)" in c, "an RMA name missing in a .cpp is a host RMA")
check("nvshmemx_putmem_on_stream (host)" not in c and "nvshmemx_putmem_on_stream" in c,
      "an on-stream routine is host code anyway: no (host) tag")
check("missing headers: shmem.h" in report, "missing header reported")
r = row("examples/ring")
check("np2: exit 0; np4: exit 1" in r, "ring's runs")
check("received message" in r and "mismatch" in r, "the program's own check output")
check("&&&& PERF" not in r, "figure rows are not a run's result")
check("| no (link) |" in row("examples/linkfail") and "nvshmemx_hostlib_init_attr" in row("examples/linkfail"),
      "link failure names the undefined symbol")
check("timed out" in row("examples/slow"), "timeout")
check("needs a GPU per PE" in row("examples/pick") and "error: peer gone" not in row("examples/pick"),
      "a program that picks a GPU the machine lacks is reported as needing a GPU per PE")
check("| left out | - | needs CUTLASS |" in row("examples/sub/big"), "left out with the reason")

# Names grouped by feature, each with its users; the helper stands for every perftest.
features = {}
for line in report.split("## Missing NVSHMEM names, by feature")[1].splitlines():
    if line.startswith("| ") and "`" in line:
        feature, name, users = [c.strip() for c in line.strip("|").split(" | ")]
        features[name.strip("`")] = (feature, users)
check(features["nvshmem_team_my_pe"][0] == "teams", "teams")
check("perftest helper (all 3 perftests)" in features["nvshmem_team_my_pe"][1], "helper users")
check(features["nvshmemx_collective_launch"][0] == "collective launch", "collective launch")
check(features["nvshmem_putmem (host)"][0] == "host-initiated RMA and atomics", "host RMA")
check(features["nvshmem_getmem (host)"][0] == "host-initiated RMA and atomics", "host RMA from g++")
check(features["nvshmemx_putmem_on_stream"][0] == "RMA and atomics on stream", "on-stream RMA")
check(features["nvshmemx_hostlib_init_attr"][0].startswith("NVSHMEM-style init"), "init")
check(features["nvshmem_team_t"][0] == "teams", "team type")
print(f"report checked: {len(programs)} programs, {len(features)} missing names grouped by feature")
