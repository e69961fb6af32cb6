#!/usr/bin/env python3
"""The NVSHMEM-API benchmark must build against NVSHMEM itself: apart from the
perftest harness (namespace gshmem_perf, plain C++), its source may use no
gshmem name. usage: check_nvshmem_api_names.py SOURCE"""
import re
import sys

text = open(sys.argv[1]).read()
code = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)  # comments may name gshmem
found = sorted(set(re.findall(r"\b(?:gshmemx?|GSHMEMX?)_(?!perf\b)\w*", code)))
found += sorted(set(re.findall(r"#\s*include\s*[<\"]gshmem/[^>\"]+[>\"]", code)))
if found:
    sys.exit(f"{sys.argv[1]} uses gshmem names, so it no longer builds against NVSHMEM: {found}")
if "nvshmem_init" not in code or "#include <nvshmem.h>" not in code:
    sys.exit(f"{sys.argv[1]} does not look like the NVSHMEM-API benchmark")
print("NVSHMEM names only")
