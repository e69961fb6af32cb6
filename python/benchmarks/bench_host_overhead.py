"""Host time of the Python layer per call, with no GPU and no CUDA work:

    PYTHONPATH=<build>/python python3 python/benchmarks/bench_host_overhead.py [--json FILE]

The package runs against stand-ins (python/tests/fake_torch.py): a fake
`torch` in sys.modules (tensors over addresses, a current stream) and a fake
extension module with a job of 2 PEs already up, whose on-stream routines
return 0 at once. So what is timed is the package's own work per call:
argument checks, reading the tensors and the current stream, the dispatch,
plus a Python call where the real extension would make its nanobind call
and enqueue the operation. The row "floor" is that Python call alone; the
row "nanobind call" one call of the real extension that issues nothing.

The fake tensors' getters are Python methods; PyTorch's are C calls of
about the same cost, but torch.cuda.current_stream() builds more (a Stream
object, device bookkeeping) than the fake's, so a package that reads the
stream that way costs more with PyTorch than here. Figures: nanoseconds per
call, the best of --repeats runs of --calls calls (the best: the machine's
other work only adds). A regression of the Python layer shows here on any
machine; the GPU-side figures are python/benchmarks/bench_eager_loop.py's.
"""

import argparse
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import fake_torch  # noqa: E402
from fake_torch import MiB, Tensor  # noqa: E402

import gshmem  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=20000, help="calls per timed run")
    ap.add_argument("--repeats", type=int, default=7, help="timed runs (the best is reported)")
    ap.add_argument("--json", help="also write JSON lines here")
    args = ap.parse_args()

    real = gshmem._C
    lib = fake_torch.FakeLibrary(real, record=False)
    gshmem._C = lib
    torch = fake_torch.FakeTorch(count=False)
    sys.modules["torch"] = torch

    sig = Tensor(lib.block(8), (1,), "uint64")
    buf = Tensor(lib.block(MiB), (MiB,), "uint8")
    src = Tensor(0x10000000, (MiB,), "uint8")  # CUDA memory off the heap
    buf8, src8 = buf[:8], src[:8]
    floor = lib.signal_op_on_stream
    handle = torch.stream

    rows = [
        ("floor", "the fake extension routine called directly (what every row includes)",
         lambda i: floor(sig.address, i, 0, 1, handle)),
        ("nanobind call", "the real extension's initialized(): one nanobind call into libgshmem",
         lambda i: real.initialized()),
        ("signal_op", "signal_op(sig, i, 1, 'set'), current stream", lambda i: gshmem.signal_op(sig, i, 1, "set")),
        ("signal_wait_until", "signal_wait_until(sig, 'eq', i), current stream",
         lambda i: gshmem.signal_wait_until(sig, "eq", i)),
        ("signal round", "signal_op + signal_wait_until: one PE's share of a ping-pong round",
         lambda i: (gshmem.signal_op(sig, i, 1, "set"), gshmem.signal_wait_until(sig, "eq", i))),
        ("put_signal 8 B", "put_signal(buf8, src8, sig, i, 1), views made once",
         lambda i: gshmem.put_signal(buf8, src8, sig, i, 1)),
        ("put_signal 8 B, new views", "put_signal(buf[:8], src[:8], sig, i, 1): two new tensor objects a call "
         "(the same memory and shape: found by their description)",
         lambda i: gshmem.put_signal(buf[:8], src[:8], sig, i, 1)),
        ("two fake slices", "buf[:8], src[:8] alone: what the row above spends outside gshmem (the fake's "
         "slicing is Python)", lambda i: (buf[:8], src[:8])),
        ("put_signal 1 MiB", "put_signal(buf, src, sig, i, 1)", lambda i: gshmem.put_signal(buf, src, sig, i, 1)),
        ("wait_until", "wait_until(sig, 'ge', i) (the typed wait)", lambda i: gshmem.wait_until(sig, "ge", i)),
        ("put 8 B", "put(buf8, src8, 1)", lambda i: gshmem.put(buf8, src8, 1)),
        ("signal_op, stream=int", "signal_op(sig, i, 1, stream=handle)",
         lambda i: gshmem.signal_op(sig, i, 1, stream=handle)),
    ]
    fast = hasattr(gshmem, "_torch_views")
    print(f"# gshmem {gshmem.__version__} ({'with' if fast else 'without'} the PyTorch fast path, "
          f"{os.path.dirname(gshmem.__file__)}), Python {platform.python_version()} on {platform.machine()}, "
          f"fake torch and extension (no CUDA work); ns per call, best of {args.repeats} x {args.calls} calls")
    print("")
    print("| call | ns | what |")
    print("|---|---|---|")
    out = []
    for name, what, call in rows:
        for i in range(1, 1001):  # warm-up, and the first-call work (stream switch, checks)
            call(i)
        best = None
        for _ in range(args.repeats):
            start = time.perf_counter_ns()
            for i in range(1, args.calls + 1):
                call(i)
            ns = (time.perf_counter_ns() - start) / args.calls
            best = ns if best is None else min(best, ns)
        print(f"| {name} | {best:.0f} | {what} |", flush=True)
        out.append(dict(bench="host_overhead", call=name, ns=round(best, 1), fast_path=fast,
                        python=platform.python_version()))
    if args.json:
        with open(args.json, "w") as f:
            for r in out:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
