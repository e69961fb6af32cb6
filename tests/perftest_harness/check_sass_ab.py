#!/usr/bin/env python3
"""scripts/sass_ab.py on hand-written SASS dumps, without a GPU: kernels
whose instructions match are the same even when their addresses, encodings
and anonymous-namespace hashes differ; one changed instruction or operand
makes a kernel differ; a kernel on one side only is counted; the exit status
is 0 only when every kernel is the same. usage: check_sass_ab.py SCRIPTS_DIR WORKDIR"""
import os
import shutil
import subprocess
import sys

scripts, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)


def dump(functions):
    """A cuobjdump -sass text: {mangled name: [(address, instruction)]}."""
    out = ["", "Fatbin elf code:", "================", "arch = sm_90", ""]
    for name, body in functions.items():
        out.append(f"        Function : {name}")
        out.append('        .headerflags    @"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"')
        for addr, ins in body:
            out.append(f"        /*{addr:04x}*/                   {ins} ;   /* 0x{addr * 7919:016x} */")
            out.append(f"                                                 /* 0x{addr * 104729:016x} */")
    return "\n".join(out) + "\n"


LOOP = ["LDC R1, c[0x0][0x28]", "LD.E.STRONG.SYS R2, desc[UR4][R4.64]", "ISETP.GE.U32.AND P0, PT, R2, R3, PT",
        "@!P0 BRA 0x10", "EXIT"]


def at(start, body):
    return [(start + 16 * i, ins) for i, ins in enumerate(body)]


os.makedirs(work)
pairs = {
    # Moved (other addresses and encodings), renamed hash: the same code.
    "moved": ({"_ZN39_GLOBAL__N__8cb13fc3_10_wait_cu_main4pollEv": at(0, LOOP)},
              {"_ZN39_GLOBAL__N__77aa0e01_10_wait_cu_main4pollEv": at(0x80, LOOP)}),
    # One operand changed (.SYS to .GPU): differs.
    "operand": ({"k": at(0, LOOP)}, {"k": at(0, [i.replace(".SYS", ".GPU") for i in LOOP])}),
    # One instruction more: differs; plus a kernel only on side B.
    "longer": ({"k": at(0, LOOP)}, {"k": at(0, LOOP[:1] + ["MEMBAR.SC.SYS"] + LOOP[1:]), "new": at(0, LOOP)}),
}
for name, (a, b) in pairs.items():
    for side, funcs in (("a", a), ("b", b)):
        with open(os.path.join(work, f"{name}.{side}.sass"), "w") as f:
            f.write(dump(funcs))

sys.path.insert(0, scripts)
import sass_ab  # noqa: E402

kernels = sass_ab.parse_sass(dump(pairs["moved"][0]))
assert list(kernels) == ["_ZN39_GLOBAL__N__10_wait_cu_main4pollEv"], kernels
assert kernels["_ZN39_GLOBAL__N__10_wait_cu_main4pollEv"] == LOOP, kernels
same, differ, only_a, only_b = sass_ab.compare(*(sass_ab.parse_sass(dump(s)) for s in pairs["moved"]))
assert (len(same), differ, only_a, only_b) == (1, [], [], []), (same, differ, only_a, only_b)
same, differ, only_a, only_b = sass_ab.compare(*(sass_ab.parse_sass(dump(s)) for s in pairs["operand"]))
assert (same, differ) == ([], ["k"]), (same, differ)
same, differ, only_a, only_b = sass_ab.compare(*(sass_ab.parse_sass(dump(s)) for s in pairs["longer"]))
assert (same, differ, only_a, only_b) == ([], ["k"], [], ["new"]), (same, differ, only_a, only_b)

out = os.path.join(work, "table.md")
r = subprocess.run([sys.executable, os.path.join(scripts, "sass_ab.py"), work, "--out", out],
                   capture_output=True, text=True)
print(r.stdout, r.stderr)
assert r.returncode == 1, f"kernels differ, yet exit status {r.returncode}"
text = open(out).read()
assert "| moved | 1 | 1 | 0 | 0 |" in text, text
assert "| operand | 1 | 0 | 1: `k` (5 / 5 instructions) | 0 |" in text, text
assert "| longer | 2 | 0 | 1: `k` (5 / 6 instructions) | 1: B: `new` |" in text, text
assert "| all | 4 | 1 | 3 | |" in text, text

# Only the identical pair: exit 0.
for f in os.listdir(work):
    if not f.startswith("moved."):
        os.remove(os.path.join(work, f))
r = subprocess.run([sys.executable, os.path.join(scripts, "sass_ab.py"), work], capture_output=True, text=True)
assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
# A pair with a side missing: a usage error, not a silent pass.
os.remove(os.path.join(work, "moved.b.sass"))
r = subprocess.run([sys.executable, os.path.join(scripts, "sass_ab.py"), work], capture_output=True, text=True)
assert r.returncode == 2 and "has no moved.b.sass" in r.stderr, (r.returncode, r.stderr)
print("check_sass_ab: ok")
