"""gshmem's stream-ordered signals and puts beside PyTorch's symmetric memory,
between two PEs, in one run:

    torchrun --nproc-per-node 2 python/benchmarks/bench_vs_torch_symm_mem.py [--out DIR]

What is measured (every figure on the current CUDA stream, timed with CUDA
events on PE 0, the median of --repeats repeats):

- one-way signal latency: a ping-pong of signals, PE 0 -> PE 1 -> PE 0,
  round trip / 2. gshmem: signal_op (SET) + signal_wait_until (EQ) on the
  stream. PyTorch: the rendezvous handle's put_signal + wait_signal (its CUDA
  backend: one kernel each, on 32-bit signal pads).
- one-way latency of an 8-byte put with its signal: the same ping-pong, each
  message 8 bytes of data then the signal. gshmem: put_signal. PyTorch's CUDA
  backend has no fused put-with-signal: copy_ into the peer's buffer
  (hdl.get_buffer) then put_signal, in stream order.
- put bandwidth, 8 B .. 32 MiB: PE 0 writes into PE 1's buffer, back to back,
  then (gshmem) quiet_on_stream; bytes / time. gshmem: put. PyTorch: copy_
  into hdl.get_buffer(peer).

Each exchange is captured once into a CUDA graph (iterations per graph:
--iters for the ping-pongs) and the graph is replayed, so that the Python
cost of issuing calls is not what is timed; both libraries are captured the
same way. The output: a markdown table (what each figure is, both figures
and their ratio), JSON lines, and a plot when matplotlib is there.

Init: torch.distributed (gloo, so that nothing needs NCCL or a GPU per PE),
then gshmem through the same store. PyTorch's symmetric memory is asked for
with torch.distributed._symmetric_memory.empty + rendezvous; where that
fails (an older PyTorch, no P2P), the reason is printed and gshmem's figures
stand alone.
"""

import argparse
import json
import os
import statistics
import time
import warnings

import torch
import torch.distributed as dist

import gshmem

from two_pe_job import MiB, log, start


class Timer:
    """CUDA events around a body on the current stream: milliseconds."""

    def __enter__(self):
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)
        self.start.record()
        return self

    def __exit__(self, *exc):
        self.end.record()
        self.end.synchronize()
        self.ms = self.start.elapsed_time(self.end)
        return False


def capture(body):
    """A CUDA graph of body() (on a side stream, as capture requires)."""
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.graph(graph, stream=stream, capture_error_mode="thread_local"):
        body()
    torch.cuda.current_stream().wait_stream(stream)
    return graph


def in_sync():
    """Both PEs idle and lined up before a timed section."""
    torch.cuda.synchronize()
    gshmem.barrier_all()


def median_of(repeats, measure):
    values = []
    for _ in range(repeats):
        in_sync()
        values.append(measure())
    return statistics.median(values), values


# ------------------------------------------------------------ the exchanges

def pingpong_graph(me, iters, send, wait):
    """iters round trips: PE 0 sends then waits, PE 1 waits then sends.
    send(i) / wait(i) enqueue message i (1-based) of this PE."""
    def body():
        for i in range(1, iters + 1):
            if me == 0:
                send(i)
                wait(i)
            else:
                wait(i)
                send(i)
    return capture(body)


def time_pingpong(me, graph, iters, replays, repeats):
    def once():
        with Timer() as t:
            for _ in range(replays):
                graph.replay()
        return t.ms * 1000 / (replays * iters) / 2  # one way, microseconds
    graph.replay()  # warm-up
    return median_of(repeats, once)


def time_puts(me, graph, nbytes, per_graph, replays, repeats):
    """PE 0 replays the graph of puts; PE 1 only keeps the pace."""
    def once():
        if me != 0:
            return 0.0
        with Timer() as t:
            for _ in range(replays):
                graph.replay()
        return nbytes * per_graph * replays / (t.ms / 1000) / 1e9  # GB/s
    if me == 0:
        graph.replay()
    return median_of(repeats, once)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="folder for the table, JSON lines, plot")
    ap.add_argument("--iters", type=int, default=200, help="round trips per captured graph")
    ap.add_argument("--replays", type=int, default=5, help="graph replays per timed repeat")
    ap.add_argument("--repeats", type=int, default=7, help="timed repeats (the median is reported)")
    ap.add_argument("--max-bytes", type=int, default=32 * MiB)
    args = ap.parse_args()

    me, peer, device, sharing = start("bench_vs_torch_symm_mem")
    log(f"# gshmem {gshmem.__version__} beside PyTorch {torch.__version__} symmetric memory: 2 PEs on "
        f"{device}{' (both PEs on one GPU)' if sharing else ''}")

    # gshmem: symmetric buffers and a signal.
    g_buf = torch.from_dlpack(gshmem.zeros(args.max_bytes, "uint8"))
    g_sig = torch.from_dlpack(gshmem.zeros(1, "uint64"))
    src = torch.ones(args.max_bytes, dtype=torch.uint8, device="cuda")

    # PyTorch's symmetric memory.
    torch_why = None
    try:
        import torch.distributed._symmetric_memory as symm_mem
        group_name = dist.group.WORLD.group_name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if hasattr(symm_mem, "enable_symm_mem_for_group"):
                symm_mem.enable_symm_mem_for_group(group_name)
        t_buf = symm_mem.empty(args.max_bytes, dtype=torch.uint8, device="cuda")
        hdl = symm_mem.rendezvous(t_buf, group_name)
        t_remote = hdl.get_buffer(peer, (args.max_bytes,), torch.uint8, 0)
        backend = symm_mem.get_backend(torch.device("cuda")) if hasattr(symm_mem, "get_backend") else "CUDA"
        log(f"# PyTorch symmetric memory: backend {backend}; signals: hdl.put_signal / hdl.wait_signal; "
            f"data: copy_ into hdl.get_buffer(peer)"
            + ("; torch's module-level put_signal(src, hdl, peer) exists but serves the NCCL backend only: "
               "not used" if hasattr(symm_mem, "put_signal") else
               "; PyTorch offers no fused put-with-signal here"))
    except Exception as e:  # noqa: BLE001 - reported, then gshmem alone
        torch_why = f"{type(e).__name__}: {e}"
        log(f"# PyTorch symmetric memory unavailable here ({torch_why}): gshmem's figures only")

    rows = []  # (measure, bytes, unit, gshmem, torch, what)

    def record(measure, nbytes, unit, g, t, what):
        rows.append(dict(measure=measure, bytes=nbytes, unit=unit, gshmem=g[0], torch=t[0] if t else None,
                         gshmem_repeats=g[1], torch_repeats=t[1] if t else None, what=what))

    # One-way signal latency.
    g_graph = pingpong_graph(
        me, args.iters,
        lambda i: gshmem.signal_op(g_sig, i, peer, "set"),
        lambda i: gshmem.signal_wait_until(g_sig, "eq", i))
    g = time_pingpong(me, g_graph, args.iters, args.replays, args.repeats)
    t = None
    if torch_why is None:
        t_graph = pingpong_graph(me, args.iters, lambda i: hdl.put_signal(peer), lambda i: hdl.wait_signal(peer))
        t = time_pingpong(me, t_graph, args.iters, args.replays, args.repeats)
    record("signal latency, one way", 0, "us", g, t,
           "ping-pong of signals / 2: gshmem signal_op + signal_wait_until; PyTorch put_signal + wait_signal")

    # One-way latency of 8 bytes with their signal.
    g_graph = pingpong_graph(
        me, args.iters,
        lambda i: gshmem.put_signal(g_buf[:8], src[:8], g_sig, i, peer, "set"),
        lambda i: gshmem.signal_wait_until(g_sig, "eq", i))
    in_sync()
    g_sig.view(torch.int64).zero_()  # the SET values start again at 1
    in_sync()
    g = time_pingpong(me, g_graph, args.iters, args.replays, args.repeats)
    t = None
    if torch_why is None:
        def t_send(i):
            t_remote[:8].copy_(src[:8])
            hdl.put_signal(peer)
        t_graph = pingpong_graph(me, args.iters, t_send, lambda i: hdl.wait_signal(peer))
        t = time_pingpong(me, t_graph, args.iters, args.replays, args.repeats)
    record("8 B put + signal latency, one way", 8, "us", g, t,
           "ping-pong of 8-byte messages / 2: gshmem put_signal; PyTorch copy_ to the peer's buffer + put_signal")

    # Put bandwidth.
    nbytes = 8
    while nbytes <= args.max_bytes:
        per_graph = max(4, min(64, (256 * MiB) // nbytes))
        dst, s = g_buf[:nbytes], src[:nbytes]

        def g_puts():
            for _ in range(per_graph):
                gshmem.put(dst, s, peer)
            gshmem.quiet_on_stream()
        g = time_puts(me, capture(g_puts) if me == 0 else None, nbytes, per_graph, args.replays, args.repeats)
        t = None
        if torch_why is None:
            rdst = t_remote[:nbytes]

            def t_puts():
                for _ in range(per_graph):
                    rdst.copy_(s)
            t = time_puts(me, capture(t_puts) if me == 0 else None, nbytes, per_graph, args.replays, args.repeats)
        record("put bandwidth", nbytes, "GB/s", g, t,
               f"{per_graph} puts back to back into the peer's buffer: gshmem put (+ quiet_on_stream); "
               "PyTorch copy_ into hdl.get_buffer(peer)")
        nbytes *= 4 if nbytes < 8 * MiB else 2

    in_sync()
    if me == 0:
        report(rows, args.out, device, sharing, torch_why)
    gshmem.barrier_all()
    gshmem.finalize()
    dist.destroy_process_group()


def size_text(nbytes):
    if nbytes == 0:
        return "-"
    for unit, scale in (("MiB", MiB), ("KiB", 1024)):
        if nbytes >= scale:
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def report(rows, out, device, sharing, torch_why):
    os.makedirs(out, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        f"gshmem beside PyTorch symmetric memory, 2 PEs, {device}"
        + (" (both PEs share one GPU: puts are copies within it)" if sharing else "") + f", {stamp}.",
        "Latency: microseconds, lower is better, ratio = gshmem / PyTorch (< 1: gshmem faster).",
        "Bandwidth: GB/s (10^9 bytes), higher is better, ratio = gshmem / PyTorch (> 1: gshmem faster).",
        "Medians of the repeats; every figure on the current stream, CUDA graphs replayed, CUDA events.",
        "",
        "| measure | size | gshmem | PyTorch symm_mem | ratio | what it measures |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        t = "n/a" if r["torch"] is None else f"{r['torch']:.3g}"
        ratio = "n/a" if not r["torch"] else f"{r['gshmem'] / r['torch']:.2f}"
        lines.append(f"| {r['measure']} ({r['unit']}) | {size_text(r['bytes'])} | {r['gshmem']:.3g} | {t} | "
                     f"{ratio} | {r['what']} |")
    if torch_why:
        lines.append("")
        lines.append(f"PyTorch symmetric memory was not available: {torch_why}")
    table = "\n".join(lines)
    print(table, flush=True)
    with open(os.path.join(out, "bench_vs_torch_symm_mem.md"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(out, "bench_vs_torch_symm_mem.jsonl"), "w") as f:
        for r in rows:
            for impl in ("gshmem", "torch"):
                if r[impl] is None:
                    continue
                line = json.dumps(dict(bench="vs_torch_symm_mem", impl=impl, measure=r["measure"], bytes=r["bytes"],
                                       unit=r["unit"], median=r[impl], repeats=r[impl + "_repeats"], device=device,
                                       pes_share_gpu=sharing))
                print(line)
                f.write(line + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("# no matplotlib: no plot", flush=True)
        return
    bw = [r for r in rows if r["unit"] == "GB/s"]
    lat = [r for r in rows if r["unit"] == "us"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    a.plot([r["bytes"] for r in bw], [r["gshmem"] for r in bw], "o-", label="gshmem put")
    if any(r["torch"] for r in bw):
        a.plot([r["bytes"] for r in bw], [r["torch"] for r in bw], "s--", label="PyTorch copy_ to get_buffer(peer)")
    a.set_xscale("log", base=2)
    a.set_yscale("log")
    a.set_xlabel("bytes per put")
    a.set_ylabel("GB/s")
    a.set_title("put bandwidth, PE 0 -> PE 1")
    a.legend()
    names = [r["measure"].replace(", one way", "") for r in lat]
    x = range(len(lat))
    b.bar([i - 0.2 for i in x], [r["gshmem"] for r in lat], 0.4, label="gshmem")
    b.bar([i + 0.2 for i in x], [r["torch"] or 0 for r in lat], 0.4, label="PyTorch symm_mem")
    b.set_xticks(list(x))
    b.set_xticklabels(names, fontsize=8)
    b.set_ylabel("microseconds, one way")
    b.set_title("latency (ping-pong / 2)")
    b.legend()
    fig.suptitle(f"gshmem vs PyTorch symmetric memory, {device}" + (" (one GPU shared)" if sharing else ""))
    fig.tight_layout()
    path = os.path.join(out, "bench_vs_torch_symm_mem.png")
    fig.savefig(path, dpi=110)
    print(f"# plot: {path}", flush=True)


if __name__ == "__main__":
    main()
