"""gshmem beside NVSHMEM's Python package (nvshmem4py) in one job, on the same
GPUs: the same Python loops of stream-ordered signals, issued call by call.

    torchrun --nproc-per-node 2 python/benchmarks/bench_vs_nvshmem4py.py [--rounds 2000] [--out DIR]

Both libraries are initialized in every process: gshmem through the default
process group's store (as every benchmark of this folder), nvshmem4py with
its unique-id bootstrap (`nvshmem.core.init(initializer_method="uid")`, the
id broadcast through the same process group). Each row is the ping-pong of
bench_eager_loop.py (PE 0 sends then waits, PE 1 waits then sends; CUDA
events on PE 0 around --rounds round trips; median of --repeats), run for
gshmem and then for nvshmem4py in the same processes, on the same stream:

- signal: gshmem `signal_op(SET i)` + `signal_wait_until(EQ i)` /
  nvshmem4py `signal_op(SIGNAL_SET)` + `signal_wait(CMP_EQ)`;
- put_signal 8 B, 1 MiB: `put_signal` + `signal_wait_until` /
  `put_signal` + `signal_wait` (nvshmem4py's `*_on_stream` routines).

nvshmem4py's `put_signal` moves the whole symmetric buffer that a tensor's
address names, so each size has its own buffers on both sides.

Then the ring, device code written in Python: one block, `--ring-rounds`
times inside one kernel, put_signal the buffer to the next PE then wait for
the previous PE's signal (bench_triton_vs_cuda.py's ring): nvshmem4py's in
Numba-CUDA (`nvshmem.core.device.numba`: `put_signal_block`,
`signal_wait`), gshmem's in Triton (`gshmem.triton`, where its device
library is built) and in CUDA C (the floor both are held to). Every launch
is checked: each PE's buffer holds what the previous PE sent.

NVSHMEM itself: nvshmem4py loads the `nvidia-nvshmem` wheel's host library
(the one PyTorch depends on). With GSHMEM_BENCH_NVSHMEM_HOME naming another
NVSHMEM (a folder with lib/libnvshmem_host.so.3 and include/), that host
library is loaded first, before PyTorch, so nvshmem4py binds to it, and its
headers are the ones the Numba kernels compile against (nvshmem4py 0.4.1's
Numba shims need headers that leave IBGDA out under NVRTC, which NVSHMEM
3.4's do not).

Where nvshmem4py (or its Numba bindings) cannot be imported or initialized
here, the tables say why and show gshmem's rows alone; the exit status is
then 3 (0 when everything ran, 1 when a payload did not arrive).
"""

import ctypes
import json
import os
import time

NVSHMEM_HOME = os.environ.get("GSHMEM_BENCH_NVSHMEM_HOME")
if NVSHMEM_HOME:  # before PyTorch, whose wheels may bring another libnvshmem_host.so.3
    ctypes.CDLL(os.path.join(NVSHMEM_HOME, "lib", "libnvshmem_host.so.3"), mode=ctypes.RTLD_GLOBAL)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import gshmem  # noqa: E402

from bench_eager_loop import in_sync, loop_arguments, loop_json, loop_table, measure
from two_pe_job import MiB, log, size_label, start

SIZES = (8, MiB)
RING_SIZES = (8, 4096, 65536, MiB)


class CurrentStream:
    """The CUDA stream protocol (`__cuda_stream__`) over PyTorch's current
    stream, which nvshmem4py's on-stream routines take."""

    def __cuda_stream__(self):
        return (0, torch.cuda.current_stream().cuda_stream)


def start_nvshmem4py(me, n):
    """nvshmem4py started beside gshmem: (module, None), or (None, why)."""
    try:
        import nvshmem.core as nvshmem
        from cuda.core import Device
    except Exception as e:  # noqa: BLE001 - reported in the table
        return None, f"import failed: {type(e).__name__}: {e}"
    try:
        uid = nvshmem.get_unique_id(empty=me != 0)
        # The id's bytes travel through the process group that started gshmem.
        raw = torch.from_numpy(uid._data.view("uint8").copy()) if me == 0 else \
            torch.zeros(len(uid._data.view("uint8")), dtype=torch.uint8)
        dist.broadcast(raw, src=0)
        if me != 0:
            uid._data.view("uint8")[:] = raw.numpy()
        device = Device(torch.cuda.current_device())
        device.set_current()
        nvshmem.init(device=device, uid=uid, rank=me, nranks=n, initializer_method="uid")
    except Exception as e:  # noqa: BLE001
        return None, f"init failed: {type(e).__name__}: {e}"
    return nvshmem, None


def gshmem_rows(peer):
    """(name, bytes, send(i), wait(i), destination or None) per loop."""
    sig = {name: torch.from_dlpack(gshmem.zeros(1, "uint64")) for name in ("signal", *SIZES)}
    rows = [("signal", 0,
             lambda i: gshmem.signal_op(sig["signal"], i, peer, "set"),
             lambda i: gshmem.signal_wait_until(sig["signal"], "eq", i), None)]
    for nbytes in SIZES:
        dst = torch.from_dlpack(gshmem.zeros(nbytes, "uint8"))
        src = torch.ones(nbytes, dtype=torch.uint8, device="cuda")
        rows.append(("put_signal", nbytes,
                     lambda i, d=dst, s=src, g=sig[nbytes]: gshmem.put_signal(d, s, g, i, peer, "set"),
                     lambda i, g=sig[nbytes]: gshmem.signal_wait_until(g, "eq", i), dst))
    return rows


def nvshmem4py_rows(nvshmem, peer, owned):
    """The same loops through nvshmem4py; its symmetric objects are appended
    to `owned` (freed before its finalize, as it asks)."""
    stream = CurrentStream()
    set_op, eq = nvshmem.SignalOp.SIGNAL_SET, nvshmem.ComparisonType.CMP_EQ
    sig = {name: nvshmem.buffer(8) for name in ("signal", *SIZES)}
    owned += [(nvshmem.free, b) for b in sig.values()]
    for b in sig.values():  # a fresh nvshmem4py buffer is not zeroed
        torch.from_dlpack(b).view(torch.uint64).zero_()
    rows = [("signal", 0,
             lambda i: nvshmem.signal_op(sig["signal"], i, set_op, peer, stream=stream),
             lambda i: nvshmem.signal_wait(sig["signal"], i, eq, stream=stream), None)]
    for nbytes in SIZES:
        dst = nvshmem.tensor((nbytes,), dtype=torch.uint8)
        src = nvshmem.tensor((nbytes,), dtype=torch.uint8)
        owned += [(nvshmem.free_tensor, dst), (nvshmem.free_tensor, src)]
        dst.zero_()
        src.fill_(1)
        rows.append(("put_signal", nbytes,
                     lambda i, d=dst, s=src, g=sig[nbytes]: nvshmem.put_signal(d, s, g, i, set_op, peer, stream=stream),
                     lambda i, g=sig[nbytes]: nvshmem.signal_wait(g, i, eq, stream=stream), dst))
    torch.cuda.synchronize()
    return rows


def payload_arrived(dst):
    """Every byte of the last put_signal arrived at this PE (each PE both
    sends and receives): the loops moved data, not only signals."""
    torch.cuda.synchronize()
    return dst is None or bool((dst == 1).all())


def numba_ring_kernel(nvshmem):
    """nvshmem4py's ring in Numba-CUDA: (kernel, None) or (None, why)."""
    try:
        import numpy
        if not hasattr(numpy, "row_stack"):
            # NumPy 2 dropped this alias of vstack, which Numba's array
            # support (0.68) still names when nvshmem4py imports it.
            numpy.row_stack = numpy.vstack
        from numba import cuda as ncuda
        import nvshmem.core.device.numba as nd
    except Exception as e:  # noqa: BLE001 - reported in the table
        return None, f"Numba bindings: {type(e).__name__}: {e}"
    if NVSHMEM_HOME:  # the shims compile against the headers of the library loaded
        ncuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = ":".join(
            [os.path.join(NVSHMEM_HOME, "include")] + ncuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS.split(":")[1:])
    signal_set, cmp_ge = int(nvshmem.SignalOp.SIGNAL_SET), int(nvshmem.ComparisonType.CMP_GE)

    @ncuda.jit
    def ring(src, dst, sig, rounds, base):
        nxt = (nd.my_pe() + 1) % nd.n_pes()
        for r in range(1, rounds + 1):
            ncuda.syncthreads()  # as the CUDA C and Triton rings
            nd.put_signal_block(dst, src, sig, base + r, signal_set, nxt)
            nd.signal_wait(sig, cmp_ge, base + r)

    def launch(src, dst, sig, rounds, base):
        stream = ncuda.external_stream(torch.cuda.current_stream().cuda_stream)
        ring[1, 128, stream](ncuda.as_cuda_array(src), ncuda.as_cuda_array(dst), ncuda.as_cuda_array(sig), rounds,
                             base)
    return launch, None


def ring_rows(me, n, args, nvshmem, owned):
    """us per ring step: {size: {impl: us}}, what could not run, lost payloads."""
    from bench_triton_vs_cuda import timed  # best of `repeats` launches, PEs started together
    gshmem_sides, notes = {}, []
    try:
        from bench_triton_vs_cuda import ring_loop
        import gshmem.triton as gt
        libs = gt.extern_libs()
        gshmem_sides["gshmem Triton"] = lambda s, d, g, rounds, base: ring_loop[(1,)](
            s, d, g, s.numel(), rounds, base, extern_libs=libs)
    except Exception as e:  # noqa: BLE001
        notes.append(f"gshmem Triton: {type(e).__name__}: {e}")
    import tempfile
    workdir = tempfile.TemporaryDirectory()
    cuda = None
    try:
        from bench_triton_vs_cuda import CudaModule
        cuda = CudaModule(workdir.name)
        gshmem_sides["gshmem CUDA C"] = lambda s, d, g, rounds, base: cuda.launch(
            "ring_cuda", 1, 128, s.data_ptr(), d.data_ptr(), g.data_ptr(), ctypes.c_ulonglong(s.numel()),
            ctypes.c_int(rounds), ctypes.c_ulonglong(base))
    except Exception as e:  # noqa: BLE001
        notes.append(f"gshmem CUDA C: {type(e).__name__}: {e}")
    numba_launch, why = (None, "nvshmem4py did not start") if nvshmem is None else numba_ring_kernel(nvshmem)
    if why:
        notes.append(f"nvshmem4py Numba: {why}")
    prev = (me - 1) % n
    table, lost = {}, []
    for nbytes in RING_SIZES:
        row = {}
        sides = []
        for name, launch in gshmem_sides.items():
            src = torch.from_dlpack(gshmem.zeros(nbytes, "uint8")).view(torch.int8)
            dst = torch.from_dlpack(gshmem.zeros(nbytes, "uint8")).view(torch.int8)
            sig = torch.from_dlpack(gshmem.zeros(1, "uint64"))
            sides.append((name, launch, src, dst, sig))
        if numba_launch is not None:
            src = nvshmem.tensor((nbytes,), dtype=torch.int8)
            dst = nvshmem.tensor((nbytes,), dtype=torch.int8)
            sig = nvshmem.tensor((1,), dtype=torch.uint64)
            owned += [(nvshmem.free_tensor, t) for t in (src, dst, sig)]
            dst.zero_()
            sig.zero_()
            sides.append(("nvshmem4py Numba", numba_launch, src, dst, sig))
        for name, launch, src, dst, sig in sides:
            src.fill_(me + 1)
            torch.cuda.synchronize()
            gshmem.barrier_all()
            base = [0]

            def one_launch(rounds=args.ring_rounds):
                launch(src, dst, sig, rounds, base[0])
                base[0] += rounds  # signals only grow: each launch waits above the last
            try:
                one_launch(1)  # compiles, and loads the module
                torch.cuda.synchronize()
                row[name] = timed(one_launch, args.ring_rounds, args.repeats)
            except Exception as e:  # noqa: BLE001
                notes.append(f"{name} {nbytes} B: {type(e).__name__}: {e}")
                continue
            torch.cuda.synchronize()
            gshmem.barrier_all()
            if not bool((dst == prev + 1).all()):
                lost.append(f"{name} ring {nbytes} B")
        table[nbytes] = row
        log(f"# ring {nbytes} B: " + ", ".join(f"{k} {v:.2f} us" for k, v in row.items()))
    if cuda is not None:
        cuda.close()
    workdir.cleanup()
    return table, notes, lost


def main():
    ap = loop_arguments(__doc__)
    ap.add_argument("--ring-rounds", type=int, default=200, help="ring steps inside one launch")
    ap.add_argument("--no-ring", action="store_true", help="the eager loops only")
    args = ap.parse_args()

    me, peer, device, sharing = start("bench_vs_nvshmem4py")
    nvshmem, why = start_nvshmem4py(me, 2)
    # Both PEs must agree on whether the second library runs.
    ok = torch.tensor([0 if why else 1])
    dist.all_reduce(ok, op=dist.ReduceOp.MIN)
    if why is None and not ok.item():
        why = "nvshmem4py failed on the other PE"
    version = ""
    if nvshmem is not None and why is None:
        version = nvshmem.get_version().libnvshmem_version
    log(f"# gshmem {gshmem.__version__} beside nvshmem4py (libnvshmem {version or 'n/a'}), eager Python loops, "
        f"2 PEs on {device}{' (both PEs on one GPU)' if sharing else ''}")
    if why:
        log(f"# nvshmem4py: {why}")

    owned = []
    mine = gshmem_rows(peer)
    theirs = nvshmem4py_rows(nvshmem, peer, owned) if why is None else [None] * len(mine)
    results, lost = [], []
    for g_row, n_row in zip(mine, theirs):
        name, nbytes, send, wait, dst = g_row
        g = measure(me, args, send, wait)
        if not payload_arrived(dst):
            lost.append(f"gshmem {name} {nbytes} B")
        n = None
        if n_row is not None:
            in_sync()
            n = measure(me, args, n_row[2], n_row[3])
            if not payload_arrived(n_row[4]):
                lost.append(f"nvshmem4py {name} {nbytes} B")
        results.append(dict(name=name, bytes=nbytes, gshmem=g, nvshmem4py=n))
        log(f"# {name} {nbytes} B: gshmem {g['us']:.2f} us" + (f", nvshmem4py {n['us']:.2f} us" if n else ""))
    ring, ring_notes = {}, []
    if not args.no_ring:
        ring, ring_notes, ring_lost = ring_rows(me, 2, args, nvshmem if why is None else None, owned)
        lost += ring_lost
    for what in lost:
        print(f"bench_vs_nvshmem4py: PE {me}: the payload of {what} did not arrive", flush=True)

    in_sync()
    if me == 0:
        report(results, args, device, sharing, version, why, ring, ring_notes)
    gshmem.barrier_all()
    if why is None:
        torch.cuda.synchronize()
        for free, obj in owned:
            free(obj)
        nvshmem.finalize()
    gshmem.finalize()
    dist.destroy_process_group()
    missing = why is not None or any(note.startswith("nvshmem4py") for note in ring_notes)
    raise SystemExit(1 if lost else 3 if missing else 0)


def report(results, args, device, sharing, version, why, ring, ring_notes):
    os.makedirs(args.out, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        f"gshmem {gshmem.__version__} beside nvshmem4py (libnvshmem {version or 'n/a'}), eager Python loops, "
        f"2 PEs, {device}" + (" (both PEs share one GPU)" if sharing else "") + f", {stamp}.",
        f"Microseconds per round trip (CUDA events on PE 0 around {args.rounds} rounds issued from Python on "
        f"PyTorch's current stream), median of {args.repeats}; lower is better; ratio = gshmem / nvshmem4py. "
        "host: PE 0's Python time to issue one round.",
        "",
    ] + loop_table(results, "nvshmem4py", "nvshmem4py")
    if why:
        lines += ["", f"nvshmem4py did not run: {why}"]
    if ring:
        impls = sorted({k for row in ring.values() for k in row})
        floor = "gshmem CUDA C"
        lines += ["", f"Ring, one block, {args.ring_rounds} steps inside one launch, best of {args.repeats} launches; "
                  f"microseconds per step; ratios to {floor} (lower is better).", "",
                  "| size | " + " | ".join(impls) + " | " + " | ".join(f"{k} / CUDA C" for k in impls if k != floor) + " |",
                  "|---" * (1 + len(impls) + len([k for k in impls if k != floor])) + "|"]
        for nbytes, row in ring.items():
            size = size_label(nbytes)
            cells = [f"{row[k]:.2f}" if k in row else "-" for k in impls]
            ratios = [f"{row[k] / row[floor]:.2f}" if k in row and floor in row else "-" for k in impls if k != floor]
            lines.append(f"| {size} | " + " | ".join(cells + ratios) + " |")
    for note in ring_notes:
        lines.append(f"- not run: {note}")
    table = "\n".join(lines)
    print(table, flush=True)
    with open(os.path.join(args.out, "bench_vs_nvshmem4py.md"), "w") as f:
        f.write(table + "\n")
    plot(results, ring, os.path.join(args.out, "bench_vs_nvshmem4py.png"), lines[0])
    with open(os.path.join(args.out, "bench_vs_nvshmem4py.jsonl"), "w") as f:
        for line in loop_json(results, ("nvshmem4py",), "vs_nvshmem4py", args.rounds, device, sharing):
            f.write(line + "\n")
        for nbytes, row in ring.items():
            for impl, us in row.items():
                f.write(json.dumps(dict(bench="vs_nvshmem4py_ring", impl=impl, bytes=nbytes, unit="us", best=us,
                                        rounds=args.ring_rounds, device=device, pes_share_gpu=sharing)) + "\n")


def plot(results, ring, path, title):
    """Both tables as one figure (matplotlib, where installed): the eager
    loops as bars, the ring's time per step against the size."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, (eager, ring_ax) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [r["name"] + (f" {size_label(r['bytes'])}" if r["bytes"] else "")
              for r in results]
    for k, impl in enumerate(("gshmem", "nvshmem4py")):
        xs = [i + (k - 0.5) * 0.38 for i in range(len(results))]
        ys = [r[impl]["us"] if r[impl] else 0 for r in results]
        eager.bar(xs, ys, width=0.38, label=impl)
    eager.set_xticks(range(len(results)), labels)
    eager.set_ylabel("us per round trip (lower is better)")
    eager.set_title("eager Python loops, on stream")
    eager.legend()
    for impl in sorted({k for row in ring.values() for k in row}):
        pts = [(n, row[impl]) for n, row in ring.items() if impl in row]
        ring_ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=impl)
    ring_ax.set_xscale("log", base=2)
    ring_ax.set_yscale("log")
    ring_ax.set_xlabel("bytes a step")
    ring_ax.set_ylabel("us per ring step (lower is better)")
    ring_ax.set_title("ring kernel, one block")
    if ring:
        ring_ax.legend()
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
