"""What the side-by-side benchmarks write, without torch or a GPU: the
eager-loop table shared by bench_eager_loop.py and bench_vs_nvshmem4py.py
(ratios, the columns of a side that did not run), bench_vs_nvshmem4py.py's
report (both tables, the ring's ratios to CUDA C, what did not run, the JSON
lines) and its start when nvshmem4py is not installed. The benchmarks import
PyTorch at module level: fake_torch.py stands in for it."""
import argparse
import json
import os
import sys
import types

import pytest

import fake_torch

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")


@pytest.fixture
def benchmarks(monkeypatch):
    """bench_eager_loop and bench_vs_nvshmem4py, imported over a fake torch."""
    torch = fake_torch.FakeTorch()
    dist = types.ModuleType("torch.distributed")
    torch.distributed = dist
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.distributed", dist)
    monkeypatch.delenv("GSHMEM_BENCH_NVSHMEM_HOME", raising=False)
    monkeypatch.syspath_prepend(BENCHMARKS)
    for name in ("two_pe_job", "bench_eager_loop", "bench_vs_nvshmem4py"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import bench_eager_loop
    import bench_vs_nvshmem4py
    return bench_eager_loop, bench_vs_nvshmem4py


def loop(us, host):
    return {"us": us, "host_us": host, "repeats": [us, us], "host_repeats": [host, host]}


EAGER = [
    {"name": "signal", "bytes": 0, "gshmem": loop(12.0, 11.9), "other": loop(30.0, 29.0), "what": "a signal"},
    {"name": "put_signal", "bytes": 8, "gshmem": loop(14.0, 13.5), "other": loop(28.0, 27.0), "what": "8 bytes"},
    {"name": "put_signal", "bytes": 1 << 20, "gshmem": loop(15.0, 14.0), "other": None, "what": "1 MiB"},
]


def test_loop_table_ratios_and_a_side_that_did_not_run(benchmarks):
    eager, _ = benchmarks
    lines = eager.loop_table(EAGER, "other", "Other")
    assert lines[0] == "| loop | size | gshmem (us) | Other (us) | ratio | gshmem host (us) | Other host (us) |"
    assert lines[1] == "|---|---|---|---|---|---|---|"
    assert lines[2] == "| signal | - | 12.00 | 30.00 | 0.40 | 11.90 | 29.00 |"
    assert lines[3] == "| put_signal | 8 B | 14.00 | 28.00 | 0.50 | 13.50 | 27.00 |"
    assert lines[4] == "| put_signal | 1 MiB | 15.00 | n/a | n/a | 14.00 | n/a |"
    with_what = eager.loop_table(EAGER, "other", "Other", what=True)
    assert with_what[1] == "|---|---|---|---|---|---|---|---|"
    assert with_what[2].endswith("| 29.00 | a signal |")


def test_loop_arguments_are_what_measure_reads(benchmarks):
    eager, _ = benchmarks
    args = eager.loop_arguments("doc").parse_args(["--rounds", "7", "--out", "x"])
    assert (args.rounds, args.warmup, args.repeats, args.out) == (7, 200, 5, "x")


def test_vs_nvshmem4py_report(benchmarks, tmp_path):
    _, vs = benchmarks
    results = [dict(r, nvshmem4py=r["other"]) for r in EAGER]
    ring = {8: {"gshmem CUDA C": 1.6, "gshmem Triton": 1.64, "nvshmem4py Numba": 4.8},
            1 << 20: {"gshmem CUDA C": 31.7, "gshmem Triton": 32.0}}
    args = argparse.Namespace(out=str(tmp_path), rounds=10, repeats=3, ring_rounds=5)
    vs.report(results, args, "H200", True, "3.8.0", None, ring, ["nvshmem4py Numba 1048576 B: Error: x"])
    md = (tmp_path / "bench_vs_nvshmem4py.md").read_text()
    assert "(libnvshmem 3.8.0)" in md and "(both PEs share one GPU)" in md
    assert "| signal | - | 12.00 | 30.00 | 0.40 | 11.90 | 29.00 |" in md
    header = "| size | gshmem CUDA C | gshmem Triton | nvshmem4py Numba | gshmem Triton / CUDA C | nvshmem4py Numba / CUDA C |"
    assert header in md
    assert "| 8 B | 1.60 | 1.64 | 4.80 | 1.02 | 3.00 |" in md
    assert "| 1 MiB | 31.70 | 32.00 | - | 1.01 | - |" in md
    assert "- not run: nvshmem4py Numba 1048576 B: Error: x" in md
    rows = [json.loads(line) for line in (tmp_path / "bench_vs_nvshmem4py.jsonl").read_text().splitlines()]
    eager_rows = [r for r in rows if r["bench"] == "vs_nvshmem4py"]
    ring_rows = [r for r in rows if r["bench"] == "vs_nvshmem4py_ring"]
    assert len(eager_rows) == 5 and len(ring_rows) == 5
    assert {r["impl"] for r in eager_rows} == {"gshmem", "nvshmem4py"}
    assert any(r["impl"] == "nvshmem4py Numba" and r["bytes"] == 8 and r["best"] == 4.8 for r in ring_rows)


def test_vs_nvshmem4py_report_when_it_did_not_run(benchmarks, tmp_path):
    _, vs = benchmarks
    results = [dict(r, nvshmem4py=None) for r in EAGER]
    args = argparse.Namespace(out=str(tmp_path), rounds=10, repeats=3, ring_rounds=5)
    vs.report(results, args, "H200", False, "", "import failed: ModuleNotFoundError: nvshmem", {}, [])
    md = (tmp_path / "bench_vs_nvshmem4py.md").read_text()
    assert "(libnvshmem n/a)" in md
    assert "| signal | - | 12.00 | n/a | n/a | 11.90 | n/a |" in md
    assert "nvshmem4py did not run: import failed: ModuleNotFoundError: nvshmem" in md
    assert "Ring, one block" not in md


def test_start_without_nvshmem4py_says_why(benchmarks, monkeypatch):
    _, vs = benchmarks
    monkeypatch.setitem(sys.modules, "nvshmem", None)  # `import nvshmem.core` fails
    module, why = vs.start_nvshmem4py(0, 2)
    assert module is None and why.startswith("import failed: ")
