#!/usr/bin/env python3
"""Runs the summary and plot scripts on a sample JSONL, without a GPU, and
checks what they produce. usage: check_plots.py SCRIPTS_DIR SAMPLE.jsonl WORKDIR
Exits 77 (skipped) when matplotlib is missing."""
import os
import shutil
import subprocess
import sys

scripts, sample, work = sys.argv[1:4]
try:
    import matplotlib  # noqa: F401
except ImportError:
    print("SKIPPED: matplotlib is not installed")
    sys.exit(77)

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
shutil.copy(sample, os.path.join(work, "sample.jsonl"))

subprocess.run([sys.executable, os.path.join(scripts, "summarize.py"), work], check=True)
summary = open(os.path.join(work, "summary.md")).read()
assert "| benchmark | value (us) |" in summary, summary[:500]
assert "one-way signal_op + signal_wait_until" in summary
assert "| pass |" in summary, "the sample's signal row meets its target"
assert "MISSING" in summary, "targets absent from the sample are reported missing"

subprocess.run([sys.executable, os.path.join(scripts, "plot_results.py"), work], check=True)
expected = ["wait_any.png", "wait_all.png", "wait_some.png", "put_signal.png",
            "bandwidth.png", "ratio_to_floor.png"]
for name in expected:
    path = os.path.join(work, name)
    assert os.path.exists(path), f"missing {name}"
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n", f"{name} is not a PNG"
    assert os.path.getsize(path) > 5000, f"{name} is suspiciously small"
pngs = [f for f in os.listdir(work) if f.endswith(".png")]
assert len(pngs) <= 6, pngs
print(f"summary.md and {len(pngs)} PNGs made from the sample")
