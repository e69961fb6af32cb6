"""A Python loop of stream-ordered signals between two PEs, issued call by
call (no CUDA graph), gshmem beside PyTorch's symmetric memory:

    torchrun --nproc-per-node 2 python/benchmarks/bench_eager_loop.py [--rounds 2000] [--out DIR]

Each row is a ping-pong of --rounds round trips on the current CUDA stream:
PE 0 sends then waits, PE 1 waits then sends, every call made from Python
as a program would make it. Unlike bench_vs_torch_symm_mem.py (which
replays CUDA graphs, so that only the GPU side is timed), the host's cost
per call counts here whenever it exceeds the GPU's: the figure is what a
Python program gets. Timed with CUDA events on PE 0 around the whole loop;
the median of --repeats repeats, in microseconds per round trip. Also
given: PE 0's host time to issue one round (perf_counter around the loop,
before the synchronize); where it is close to the round trip, the loop is
bound by the host.

Rows (gshmem / PyTorch):
- signal: signal_op(SET i) + signal_wait_until(EQ i) / hdl.put_signal +
  hdl.wait_signal;
- put_signal 8 B, 1 MiB: put_signal + signal_wait_until / copy_ into
  hdl.get_buffer(peer) + put_signal + wait_signal (PyTorch's CUDA backend has
  no fused put-with-signal);
- wait_until: signal_op + wait_until on the signal as a uint64 ivar (the
  typed wait routines), gshmem only.
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

from two_pe_job import MiB, log, size_label, start


def in_sync():
    torch.cuda.synchronize()
    gshmem.barrier_all()


def time_loop(me, rounds, send, wait, first):
    """rounds round trips from Python; returns (us per round trip on the
    GPU, us per round on the host); `first` is the first message's number."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    in_sync()
    start.record()
    t0 = time.perf_counter()
    for i in range(first, first + rounds):
        if me == 0:
            send(i)
            wait(i)
        else:
            wait(i)
            send(i)
    host = time.perf_counter() - t0
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000 / rounds, host * 1e6 / rounds


def measure(me, args, send, wait):
    """Warm-up, then --repeats timed loops; medians and the repeats."""
    counter = [1]

    def run(rounds):
        r = time_loop(me, rounds, send, wait, counter[0])
        counter[0] += rounds  # SET values keep growing: no reset between loops
        return r

    run(args.warmup)
    gpu, host = [], []
    for _ in range(args.repeats):
        g, h = run(args.rounds)
        gpu.append(g)
        host.append(h)
    return dict(us=statistics.median(gpu), host_us=statistics.median(host), repeats=gpu, host_repeats=host)


def loop_arguments(doc):
    """The command line of an eager-loop benchmark (--out, --rounds,
    --warmup, --repeats: what measure() reads), to add to."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="folder for the table and JSON lines")
    ap.add_argument("--rounds", type=int, default=2000, help="round trips per timed loop")
    ap.add_argument("--warmup", type=int, default=200, help="round trips before the timed loops")
    ap.add_argument("--repeats", type=int, default=5, help="timed loops (the median is reported)")
    return ap


def main():
    args = loop_arguments(__doc__).parse_args()

    me, peer, device, sharing = start("bench_eager_loop")
    log(f"# gshmem {gshmem.__version__} beside PyTorch {torch.__version__} symmetric memory, eager Python loops, "
        f"2 PEs on {device}{' (both PEs on one GPU)' if sharing else ''}")

    buf = torch.from_dlpack(gshmem.zeros(MiB, "uint8"))
    src = torch.ones(MiB, dtype=torch.uint8, device="cuda")
    buf8, src8 = buf[:8], src[:8]
    sigs = {name: torch.from_dlpack(gshmem.zeros(1, "uint64")) for name in ("signal", "8", "1M", "wait")}

    torch_why = None
    try:
        import torch.distributed._symmetric_memory as symm_mem
        group_name = dist.group.WORLD.group_name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if hasattr(symm_mem, "enable_symm_mem_for_group"):
                symm_mem.enable_symm_mem_for_group(group_name)
        t_buf = symm_mem.empty(MiB, dtype=torch.uint8, device="cuda")
        hdl = symm_mem.rendezvous(t_buf, group_name)
        t_remote = hdl.get_buffer(peer, (MiB,), torch.uint8, 0)
        t_remote8 = t_remote[:8]
    except Exception as e:  # noqa: BLE001 - reported, then gshmem alone
        torch_why = f"{type(e).__name__}: {e}"
        log(f"# PyTorch symmetric memory unavailable here ({torch_why}): gshmem's figures only")

    def t_wait(i):
        hdl.wait_signal(peer)

    def t_send_bare(i):
        hdl.put_signal(peer)

    def t_send(remote, local):
        def send(i):
            remote.copy_(local)
            hdl.put_signal(peer)
        return send

    rows = [
        ("signal", 0,
         lambda i: gshmem.signal_op(sigs["signal"], i, peer, "set"),
         lambda i: gshmem.signal_wait_until(sigs["signal"], "eq", i),
         (t_send_bare, t_wait), "signal_op + signal_wait_until; PyTorch put_signal + wait_signal"),
        ("put_signal", 8,
         lambda i: gshmem.put_signal(buf8, src8, sigs["8"], i, peer, "set"),
         lambda i: gshmem.signal_wait_until(sigs["8"], "eq", i),
         (None if torch_why else t_send(t_remote8, src8), t_wait),
         "put_signal + signal_wait_until; PyTorch copy_ to get_buffer(peer) + put_signal + wait_signal"),
        ("put_signal", MiB,
         lambda i: gshmem.put_signal(buf, src, sigs["1M"], i, peer, "set"),
         lambda i: gshmem.signal_wait_until(sigs["1M"], "eq", i),
         (None if torch_why else t_send(t_remote, src), t_wait),
         "put_signal + signal_wait_until; PyTorch copy_ to get_buffer(peer) + put_signal + wait_signal"),
        ("wait_until", 0,
         lambda i: gshmem.signal_op(sigs["wait"], i, peer, "set"),
         lambda i: gshmem.wait_until(sigs["wait"], "eq", i),
         None, "signal_op + wait_until (uint64 ivar); gshmem only"),
    ]
    results = []
    for name, nbytes, g_send, g_wait, t_fns, what in rows:
        g = measure(me, args, g_send, g_wait)
        t = None
        if t_fns is not None and t_fns[0] is not None and torch_why is None:
            t = measure(me, args, t_fns[0], t_fns[1])
        results.append(dict(name=name, bytes=nbytes, gshmem=g, torch=t, what=what))
        log(f"# {name} {nbytes} B: gshmem {g['us']:.2f} us"
            + (f", PyTorch {t['us']:.2f} us" if t else ""))

    in_sync()
    if me == 0:
        report(results, args, device, sharing, torch_why)
    gshmem.barrier_all()
    gshmem.finalize()
    dist.destroy_process_group()


def loop_table(results, other, label, what=False):
    """The Markdown table of eager loops (header and rows): gshmem beside
    results[i][other] (None where it did not run), the ratio gshmem / other,
    and each side's host time per round; with `what`, what each row does."""
    lines = [f"| loop | size | gshmem (us) | {label} (us) | ratio | gshmem host (us) | {label} host (us) |"
             + (" what |" if what else ""),
             "|---" * (8 if what else 7) + "|"]
    for r in results:
        g, o = r["gshmem"], r[other]
        size = size_label(r["bytes"]) if r["bytes"] else "-"
        o_us, ratio, o_host = ("n/a",) * 3 if o is None else (
            f"{o['us']:.2f}", f"{g['us'] / o['us']:.2f}", f"{o['host_us']:.2f}")
        lines.append(f"| {r['name']} | {size} | {g['us']:.2f} | {o_us} | {ratio} | {g['host_us']:.2f} | {o_host} |"
                     + (f" {r['what']} |" if what else ""))
    return lines


def loop_json(results, others, bench, rounds, device, sharing):
    """The JSON lines of eager loops: one per loop and side that ran
    (`gshmem` and the keys in `others`)."""
    for r in results:
        for impl in ("gshmem", *others):
            m = r[impl]
            if m is not None:
                yield json.dumps(dict(bench=bench, impl=impl, loop=r["name"], bytes=r["bytes"], unit="us",
                                      median=m["us"], host_us=m["host_us"], repeats=m["repeats"], rounds=rounds,
                                      device=device, pes_share_gpu=sharing))


def report(results, args, device, sharing, torch_why):
    os.makedirs(args.out, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        f"gshmem beside PyTorch symmetric memory, eager Python loops, 2 PEs, {device}"
        + (" (both PEs share one GPU)" if sharing else "") + f", {stamp}.",
        f"Microseconds per round trip (CUDA events on PE 0 around {args.rounds} rounds issued from Python, "
        f"not graph-captured), median of {args.repeats}; lower is better; ratio = gshmem / PyTorch. "
        "host: PE 0's Python time to issue one round.",
        "",
    ] + loop_table(results, "torch", "PyTorch symm_mem", what=True)
    if torch_why:
        lines += ["", f"PyTorch symmetric memory was not available: {torch_why}"]
    table = "\n".join(lines)
    print(table, flush=True)
    with open(os.path.join(args.out, "bench_eager_loop.md"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(args.out, "bench_eager_loop.jsonl"), "w") as f:
        for line in loop_json(results, ("torch",), "eager_loop", args.rounds, device, sharing):
            print(line)
            f.write(line + "\n")


if __name__ == "__main__":
    main()
