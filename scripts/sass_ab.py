#!/usr/bin/env python3
"""Kernel-by-kernel comparison of two SASS dumps (`cuobjdump -sass`), the
check behind scripts/sass_ab.sh: whether a change to the library altered the
machine code of kernels that do not call what it changed, with no GPU.

usage: sass_ab.py DIR [--out FILE]

DIR holds pairs NAME.a.sass and NAME.b.sass (the same source compiled
against tree A's and tree B's headers). Per pair: the kernels of each side,
how many are instruction for instruction the same, which differ, which are on
one side only. Instructions are compared as text without their addresses and
encodings (so code that moved is still the same code); kernel names lose the
hash that nvcc gives an anonymous namespace (it follows the source's path,
which differs between two trees). Output: a Markdown table (stdout, and FILE
with --out). Exit status 0 when every kernel is the same on both sides, 1
when one differs or is on one side only, 2 on a usage error.
"""
import argparse
import os
import re
import sys

_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
# "        /*0040*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;   /* 0x... */"
_INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")
_ANONYMOUS = re.compile(r"_GLOBAL__N__[0-9a-f]+_")


def kernel_name(mangled):
    """The kernel's name with the anonymous-namespace hash removed."""
    return _ANONYMOUS.sub("_GLOBAL__N__", mangled)


def parse_sass(text):
    """{kernel name: [instruction text, ...]} of one cuobjdump -sass dump."""
    kernels, name = {}, None
    for line in text.splitlines():
        m = _FUNCTION.match(line)
        if m:
            name = kernel_name(m.group(1))
            kernels[name] = []
            continue
        m = _INSTRUCTION.search(line)
        if name is not None and m:
            kernels[name].append(m.group(1))
    return kernels


def compare(a, b):
    """(same, differ, only_a, only_b): kernel names, sorted."""
    same = sorted(k for k in a if k in b and a[k] == b[k])
    differ = sorted(k for k in a if k in b and a[k] != b[k])
    return same, differ, sorted(set(a) - set(b)), sorted(set(b) - set(a))


def table(pairs):
    """Markdown rows for [(name, a_kernels, b_kernels)]; returns (text, all_same)."""
    lines = ["| source | kernels | identical | differ | on one side only |", "|---|---|---|---|---|"]
    total = identical = 0
    all_same = True
    for name, a, b in pairs:
        same, differ, only_a, only_b = compare(a, b)
        total += len(set(a) | set(b))
        identical += len(same)
        all_same = all_same and not differ and not only_a and not only_b
        shown = ", ".join(f"`{k}` ({len(a[k])} / {len(b[k])} instructions)" for k in differ[:4])
        shown += f" and {len(differ) - 4} more" if len(differ) > 4 else ""
        one_side = ", ".join([f"A: `{k}`" for k in only_a[:2]] + [f"B: `{k}`" for k in only_b[:2]])
        lines.append(f"| {name} | {len(set(a) | set(b))} | {len(same)} | {len(differ)}{': ' + shown if shown else ''} "
                     f"| {len(only_a) + len(only_b)}{': ' + one_side if one_side else ''} |")
    lines.append(f"| all | {total} | {identical} | {total - identical} | |")
    return "\n".join(lines), all_same


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="folder of NAME.a.sass / NAME.b.sass pairs")
    ap.add_argument("--out", help="also write the table here")
    args = ap.parse_args(argv)
    names = sorted(f[:-len(".a.sass")] for f in os.listdir(args.dir) if f.endswith(".a.sass"))
    pairs = []
    for name in names:
        b_path = os.path.join(args.dir, name + ".b.sass")
        if not os.path.exists(b_path):
            print(f"sass_ab.py: {name}.a.sass has no {name}.b.sass beside it", file=sys.stderr)
            return 2
        with open(os.path.join(args.dir, name + ".a.sass")) as fa, open(b_path) as fb:
            pairs.append((name, parse_sass(fa.read()), parse_sass(fb.read())))
    if not pairs:
        print(f"sass_ab.py: no NAME.a.sass in {args.dir}", file=sys.stderr)
        return 2
    text, all_same = table(pairs)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
