"""The Python package on GPUs, under torchrun (2 or more PEs; one GPU each, or
PEs sharing one GPU under MPS with GSHMEM_ALLOW_GPU_SHARING=1):

    torchrun --nproc-per-node 2 python/tests/gpu/torchrun_checks.py
    torchrun --nproc-per-node 2 python/tests/gpu/torchrun_checks.py --dead-peer

Each check prints one line per PE, "PASS <check>" or "FAIL <check>: why", and
the program exits non-zero when any check failed on this PE. Init goes
through torchrun's environment: rank 0 makes the unique id (the socket
bootstrap) and hands it over through torch.distributed's store.

--dead-peer is a job of its own: after one barrier, PE 1 (--victim) kills
itself with SIGKILL; every other PE must get GshmemError with code
GSHMEMX_ERROR_PEER_LOST (-17) from its next barrier within --bound seconds,
and prints "PASS dead peer". torchrun then stops the job (a worker died)
and reports a failure of its own: the verdict is the survivors' line (and
exit status 0), not torchrun's. Survivors ignore torchrun's SIGTERM until
they have printed it.

A watchdog ends a PE that hangs (its stacks printed, exit 1) after --timeout s
without finishing a check.
"""

import argparse
import faulthandler
import os
import signal
import sys
import time

import torch

import gshmem
from check_harness import check, expect, init_checks, run_all, say, sym

ERROR_PEER_LOST = -17

def u64(t):
    """An int64 tensor seen as uint64 (what signals and result indices are):
    PyTorch implements few operations on uint64 itself, so the tests fill and
    read the int64 tensor and hand the library this view."""
    return t.view(torch.uint64)


def value_of(t):
    """The integer in a one-element tensor (uint64 read through int64)."""
    if t.dtype == torch.uint64:
        t = t.view(torch.int64)
    return int(t.cpu().item()) % (1 << 64)


@check("ring through peer views (gshmem.peer, direct stores)")
def ring_peer(me, n):
    nxt, prv = (me + 1) % n, (me - 1) % n
    buf = sym(4096, "float32")
    src = torch.arange(4096, device="cuda", dtype=torch.float32) + 1000 * me
    view = torch.from_dlpack(gshmem.peer(buf, nxt))
    view.copy_(src)                 # stores into the next PE's buffer
    gshmem.barrier_all()            # waits for the device, then for every PE
    want = torch.arange(4096, device="cuda", dtype=torch.float32) + 1000 * prv
    expect(torch.equal(buf, want), f"got {buf[:4].tolist()}..., expected PE {prv}'s {want[:4].tolist()}...")


@check("ring through put + quiet_on_stream + barrier_all_on_stream")
def ring_put(me, n):
    nxt, prv = (me + 1) % n, (me - 1) % n
    for count in (1, 1000, 1 << 20):
        buf = sym(count, "int32")
        src = torch.full((count,), 7 * me + count % 97, device="cuda", dtype=torch.int32)
        gshmem.put(buf, src, nxt)
        gshmem.quiet_on_stream()
        gshmem.barrier_all_on_stream()
        got = buf.cpu()             # stream order: after the barrier
        want = 7 * prv + count % 97
        expect(bool((got == want).all()), f"{count} ints: got {got[:4].tolist()}, expected {want}")
    gshmem.quiet()                  # the host form: nothing of this thread pending
    return "1, 1000 and 2^20 ints"


@check("put_signal + signal_wait_until on the current stream, 100 rounds")
def put_signal_rounds(me, n):
    nxt, prv = (me + 1) % n, (me - 1) % n
    buf = sym(1024, "float32")
    sig = sym(1, "uint64")
    total = torch.zeros((), device="cuda", dtype=torch.float64)
    rounds = 100
    for r in range(1, rounds + 1):
        src = torch.full((1024,), float(me * 1000 + r), device="cuda")
        gshmem.put_signal(buf, src, sig, r, nxt, "set")
        gshmem.signal_wait_until(sig, "ge", r)
        total += buf.double().sum() / 1024   # reads round r's data (or a later one's)
        # The sender may overwrite buf in round r+1 only after we released it:
        # a barrier on the stream keeps the rounds apart.
        gshmem.barrier_all_on_stream()
    want = sum(prv * 1000 + r for r in range(1, rounds + 1))
    expect(abs(total.item() - want) < 1e-6, f"sum of rounds {total.item()}, expected {want}")
    expect(value_of(sig) == rounds, f"signal {value_of(sig)}, expected {rounds}")


@check("wait_until / wait_until_all / _any / _some on the stream")
def wait_forms(me, n):
    nxt = (me + 1) % n
    # wait_until: one int64 element.
    one = sym(1, "int64")
    gshmem.put(one, torch.full((1,), 42, device="cuda", dtype=torch.int64), nxt)
    gshmem.wait_until(one, "eq", 42)
    expect(value_of(one) == 42, "wait_until: value")
    # wait_until_all: 64 int32 elements, every one set by the previous PE.
    many = sym(64, "int32")
    gshmem.put(many, torch.full((64,), 5, device="cuda", dtype=torch.int32), nxt)
    gshmem.wait_until_all(many, "eq", 5)
    expect(bool((many.cpu() == 5).all()), "wait_until_all: values")
    # wait_until_any: only element 3 becomes nonzero (a store through a peer view).
    anyv = sym(16, "int64")
    torch.from_dlpack(gshmem.peer(anyv, nxt))[3:4].fill_(9)
    result = torch.full((1,), 1 << 40, device="cuda", dtype=torch.int64)
    gshmem.wait_until_any(anyv, "ne", 0, u64(result))
    idx = value_of(result)
    expect(idx == 3, f"wait_until_any: index {idx}, expected 3")
    # wait_until_some: elements 1 and 5 become 1.
    some = sym(8, "int32")
    pv = torch.from_dlpack(gshmem.peer(some, nxt))
    pv[1:2].fill_(1)
    pv[5:6].fill_(1)
    torch.cuda.synchronize()
    gshmem.barrier_all()            # both stores are in before the wait starts
    indices = torch.full((8,), -1, device="cuda", dtype=torch.int64)
    nres = torch.zeros(1, device="cuda", dtype=torch.int64)
    gshmem.wait_until_some(some, "eq", 1, u64(indices), u64(nres))
    k = value_of(nres)
    got = sorted(int(x) for x in indices.cpu().tolist()[:k])
    expect(got == [1, 5], f"wait_until_some: indices {got} (n={k}), expected [1, 5]")
    gshmem.barrier_all()
    return "int64 and int32 ivars"


@check("barrier_all and barrier_all_on_stream order the PEs (50 rounds)")
def barriers(me, n):
    nxt, prv = (me + 1) % n, (me - 1) % n
    box = sym(1, "int64")
    for r in range(1, 51):
        gshmem.put(box, torch.full((1,), r * n + me, device="cuda", dtype=torch.int64), nxt)
        if r % 2:
            gshmem.barrier_all_on_stream()
            got = int(box.cpu().item())
        else:
            gshmem.barrier_all()
            got = int(box.cpu().item())
        expect(got == r * n + prv, f"round {r}: box {got}, expected {r * n + prv}")
        gshmem.barrier_all()        # nobody writes round r+1 before everyone read round r


@check("CUDA graph: put_signal / signal_wait_until captured once, replayed 1000 times")
def graph_replay(me, n):
    nxt, prv = (me + 1) % n, (me - 1) % n
    buf = sym(256, "float32")
    sig = sym(1, "uint64")
    src = torch.full((256,), float(me + 1), device="cuda")
    acc = torch.zeros((), device="cuda", dtype=torch.float64)
    minus_one = (1 << 64) - 1       # SIGNAL_ADD of 2^64-1: an atomic decrement
    stream = torch.cuda.Stream()
    graph = torch.cuda.CUDAGraph()
    gshmem.barrier_all()
    with torch.cuda.graph(graph, stream=stream, capture_error_mode="thread_local"):
        gshmem.put_signal(buf, src, sig, 1, nxt, "add")
        gshmem.signal_wait_until(sig, "ge", 1)
        acc.add_(buf.double().sum() / 256)
        # Consume this round's signal atomically: the next round's may already be in.
        gshmem.signal_op(sig, minus_one, me, "add")
    torch.cuda.synchronize()
    expect(acc.item() == 0 and value_of(sig) == 0, "capturing must not run anything")
    gshmem.barrier_all()
    replays = 1000
    start = time.perf_counter()
    with torch.cuda.stream(stream):
        for _ in range(replays):
            graph.replay()
    stream.synchronize()
    took = time.perf_counter() - start
    gshmem.barrier_all()
    expect(acc.item() == replays * (prv + 1), f"accumulated {acc.item()}, expected {replays * (prv + 1)}")
    expect(value_of(sig) == 0, f"signal left at {value_of(sig)}, expected 0")
    return f"{took / replays * 1e6:.1f} us per replay"


def watchdog(seconds):
    """A hang ends the PE (from a thread of faulthandler's: it fires even while
    the main thread is blocked inside the library), with every thread's stack."""
    say(f"watchdog: a PE that has not finished a check within {seconds} s prints its stacks and exits")
    faulthandler.dump_traceback_later(seconds, exit=True)


def dead_peer(me, n, victim, bound):
    gshmem.barrier_all()
    if me == victim:
        say(f"PE {me}: killing myself (SIGKILL)")
        time.sleep(0.5)             # the others are in their barrier by now
        os.kill(os.getpid(), signal.SIGKILL)
    # torchrun tears the job down once a worker died: the survivors finish first.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    start = time.perf_counter()
    try:
        gshmem.barrier_all()
        say(f"FAIL dead peer: barrier_all returned normally though PE {victim} is gone")
        return False
    except gshmem.GshmemError as e:
        took = time.perf_counter() - start
        ok = e.code == ERROR_PEER_LOST and took < bound
        say(f"{'PASS' if ok else 'FAIL'} dead peer: GshmemError code {e.code} after {took:.2f} s "
            f"(expected {ERROR_PEER_LOST} within {bound} s): {e}")
        return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dead-peer", action="store_true", help="the dead-peer job (see above)")
    ap.add_argument("--victim", type=int, default=1, help="the PE that kills itself (--dead-peer)")
    ap.add_argument("--bound", type=float, default=15.0, help="seconds within which PEER_LOST must come")
    ap.add_argument("--timeout", type=int, default=240, help="watchdog seconds")
    args = ap.parse_args()
    watchdog(args.timeout)
    me, n = init_checks()
    if args.dead_peer:
        ok = dead_peer(me, n, args.victim, args.bound)
        sys.stdout.flush()
        os._exit(0 if ok else 1)    # the job is broken: no finalize collective
    run_all((ring_peer, ring_put, put_signal_rounds, wait_forms, barriers, graph_replay), me, n, args.timeout)


if __name__ == "__main__":
    main()
