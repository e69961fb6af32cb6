"""gshmem.tile on GPUs, under torchrun (2 or more PEs, one GPU each):

    torchrun --nproc-per-node 2 python/tests/gpu/tile_checks.py

cuTile kernels that put, signal and wait across GPUs with gshmem.tile,
checked against PyTorch. One line per check and PE, "PASS <check>" or
"FAIL <check>: why" (as torchrun_checks.py), exit status non-zero when a
check failed on this PE. Needs cuda-tile and tileiras; without them it
prints one FAIL line saying what is missing.
"""

import argparse
import faulthandler

import torch

import gshmem
from check_harness import check, expect, init_checks, run_all, say, sym

try:
    import cuda.tile as ct
    import gshmem.tile as gtile
    _missing = None
except ImportError as e:  # reported after init, as a FAIL line
    _missing = str(e)

T = 1024          # elements of a tile
LITMUS_ROUNDS = 10000

if _missing is None:
    @ct.kernel
    def ring_kernel(src, dst_next, sig_next, sig, dst, out, r, T: ct.Constant[int]):
        # Block b puts its tile into the next PE's dst with signal b, then
        # waits for the previous PE's tile and copies it out.
        b = ct.bid(0)
        gtile.put_signal(dst_next, (b,), ct.load(src, (b,), shape=(T,)), sig_next, b, r, gtile.SIGNAL_SET)
        gtile.signal_wait_until(sig, b, gtile.CMP_GE, r)
        ct.store(out, (b,), ct.load(dst, (b,), shape=(T,)))

    @ct.kernel
    def fused_kernel(x, y, dst_next, sig_next, sig, dst, out, alpha, r, T: ct.Constant[int]):
        # A tile of alpha * x + y computed here and stored straight into the
        # next PE's dst (the put), announced by a release signal; then this
        # PE's incoming tile.
        b = ct.bid(0)
        z = ct.astype(alpha, ct.float32) * ct.load(x, (b,), shape=(T,)) + ct.load(y, (b,), shape=(T,))
        gtile.put_signal(dst_next, (b,), z, sig_next, b, r, gtile.SIGNAL_SET)
        gtile.signal_wait_until(sig, b, gtile.CMP_GE, r)
        ct.store(out, (b,), ct.load(dst, (b,), shape=(T,)))

    @ct.kernel
    def gemm_epilogue_kernel(a, w, bias, dst_next, sig_next, sig, dst, out, r, M: ct.Constant[int], N: ct.Constant[int],
                             K: ct.Constant[int]):
        # A small GEMM with its epilogue (relu(a @ w + bias)) per block of M
        # rows, the result put into the next PE's dst, then signal and wait.
        b = ct.bid(0)
        acc = ct.matmul(ct.load(a, (b, 0), shape=(M, K)), ct.load(w, (0, 0), shape=(K, N)))
        z = ct.maximum(acc + ct.load(bias, (0, 0), shape=(1, N)), 0.0)
        gtile.put(dst_next, (b, 0), z)
        gtile.signal_op(sig_next, b, r, gtile.SIGNAL_SET)
        gtile.signal_wait_until(sig, b, gtile.CMP_GE, r)
        ct.store(out, (b, 0), ct.load(dst, (b, 0), shape=(M, N)))

    @ct.kernel
    def litmus_kernel(data_next, sig_next, data, sig, violations, rounds, ATOMIC: ct.Constant[int], T: ct.Constant[int]):
        # Message passing across GPUs, `rounds` times in one kernel: the
        # tile of r (weak stores) into the next PE, then its flag r with
        # release at system scope (ATOMIC: ct.atomic_xchg with ACQ_REL, else
        # gshmem.tile.signal_op); this PE waits for its own flag >= r
        # (acquire) and reads its tile: an element below r is a violation
        # (the previous PE writes only rising values, so r or later is right).
        bad = ct.zeros((T,), dtype=ct.int32)
        for r in range(1, rounds + 1):
            gtile.put(data_next, (0,), ct.full((T,), r, dtype=ct.int32))
            if ATOMIC == 1:
                ct.atomic_xchg(sig_next, 0, ct.astype(r, ct.uint64), memory_order=ct.MemoryOrder.ACQ_REL,
                               memory_scope=ct.MemoryScope.SYS)
            else:
                gtile.signal_op(sig_next, 0, r, gtile.SIGNAL_SET)
            gtile.signal_wait_until(sig, 0, gtile.CMP_GE, r)
            seen = ct.load(data, (0,), shape=(T,))
            bad = bad + ct.astype(seen < r, ct.int32)
        ct.store(violations, (0,), bad)

    @ct.kernel
    def cas_kernel(table, order, old_out, desired, T: ct.Constant[int]):
        # Every PE: CAS(0 -> desired) on every slot of PE 0's table, block b
        # taking the slots order[b*T : (b+1)*T] (a different order per PE).
        b = ct.bid(0)
        idx = ct.load(order, (b,), shape=(T,))
        old = gtile.atomic_cas(table, idx, 0, desired, ct.MemoryOrder.ACQ_REL)
        ct.store(old_out, (b,), old)

    @ct.kernel
    def add_kernel(counters, order, rounds, T: ct.Constant[int]):
        b = ct.bid(0)
        idx = ct.load(order, (b,), shape=(T,))
        for _ in range(rounds):
            gtile.atomic_add(counters, idx, 1, ct.MemoryOrder.RELAXED)

    @ct.kernel
    def any_all_kernel(flags, out, r, T: ct.Constant[int]):
        i = gtile.wait_until_any(flags, 0, (T,), gtile.CMP_GE, r)
        v = gtile.wait_until_all(flags, 0, (T,), gtile.CMP_GE, r)
        ct.store(out, (0,), ct.astype(i, ct.int64))
        ct.store(out, (1,), ct.astype(ct.min(v), ct.int64))

    @ct.kernel
    def flags_kernel(flags_next, scratch, r, T: ct.Constant[int]):
        # The next PE's flags: first one element, then (after a fence) the rest.
        gtile.put_scatter(flags_next, ct.arange(1, dtype=ct.int32) + (T - 1), ct.full((1,), r, dtype=ct.int64))
        gtile.fence(scratch, 0)
        gtile.put_scatter(flags_next, ct.arange(T, dtype=ct.int32), ct.full((T,), r, dtype=ct.int64))
        gtile.quiet(scratch, 0)


def launch(grid, kernel, *args):
    ct.launch(torch.cuda.current_stream(), grid, kernel, args)


@check("cuTile ring: put_signal per block to the next PE, 20 rounds, 4 blocks")
def ring(me, n):
    nxt, prv = (me + 1) % n, (me - 1) % n
    blocks, rounds = 4, 20
    src, dst, sig = sym(blocks * T, "float32"), sym(blocks * T, "float32"), sym(blocks, "uint64")
    dst_next, sig_next = gtile.peer(dst, nxt), gtile.peer(sig, nxt)
    out = torch.empty(blocks * T, device="cuda")
    base = torch.arange(blocks * T, device="cuda", dtype=torch.float32)
    for r in range(1, rounds + 1):
        src.copy_(base + 100000 * me + r)
        launch((blocks,), ring_kernel, src, dst_next, sig_next, sig, dst, out, r, T)
        want = base + 100000 * prv + r
        expect(torch.equal(out, want), f"round {r}: got {out[:3].tolist()}..., expected {want[:3].tolist()}...")
        gshmem.barrier_all()  # the next round overwrites dst only after every PE read it
    return f"{blocks} tiles of {T} floats, {rounds} rounds"


@check("cuTile fused: alpha*x + y per tile put to the next PE, signal, in-kernel wait (== torch)")
def fused(me, n):
    nxt, prv = (me + 1) % n, (me - 1) % n
    blocks = 8
    count = blocks * T
    x, y, dst, sig = sym(count, "float32"), sym(count, "float32"), sym(count, "float32"), sym(blocks, "uint64")
    out = torch.empty(count, device="cuda")
    alpha = 0.5
    for r in range(1, 4):
        gen = torch.Generator(device="cuda").manual_seed(1000 * me + r)
        x.copy_(torch.randn(count, device="cuda", generator=gen))
        y.copy_(torch.randn(count, device="cuda", generator=gen))
        launch((blocks,), fused_kernel, x, y, gtile.peer(dst, nxt), gtile.peer(sig, nxt), sig, dst, out, alpha, r, T)
        gen = torch.Generator(device="cuda").manual_seed(1000 * prv + r)
        px = torch.randn(count, device="cuda", generator=gen)
        py = torch.randn(count, device="cuda", generator=gen)
        want = alpha * px + py
        expect(torch.allclose(out, want, rtol=1e-6, atol=1e-6), f"round {r}: max error {(out - want).abs().max().item()}")
        gshmem.barrier_all()
    return f"{blocks} tiles of {T}, 3 rounds"


@check("cuTile fused GEMM epilogue: relu(a @ w + bias) per 64-row block put to the next PE (== torch)")
def gemm_epilogue(me, n):
    nxt, prv = (me + 1) % n, (me - 1) % n
    M, N, K, blocks = 64, 64, 64, 4
    dst, sig = sym((blocks * M, N), "float32"), sym(blocks, "uint64")
    out = torch.empty(blocks * M, N, device="cuda")

    def inputs(pe):
        gen = torch.Generator(device="cuda").manual_seed(77 + pe)
        return (torch.randn(blocks * M, K, device="cuda", generator=gen),
                torch.randn(K, N, device="cuda", generator=gen), torch.randn(1, N, device="cuda", generator=gen))

    a, w, bias = inputs(me)
    launch((blocks,), gemm_epilogue_kernel, a, w, bias, gtile.peer(dst, nxt), gtile.peer(sig, nxt), sig, dst, out,
           1, M, N, K)
    pa, pw, pb = inputs(prv)
    want = torch.relu(pa @ pw + pb)
    err = (out - want).abs().max().item()
    expect(torch.allclose(out, want, rtol=2e-2, atol=2e-2), f"max error {err}")  # tf32 products
    gshmem.barrier_all()
    return f"max error {err:.2e}"


def litmus(me, n, atomic):
    nxt = (me + 1) % n
    data, sig = sym(T, "int32"), sym(1, "uint64")
    violations = torch.zeros(T, device="cuda", dtype=torch.int32)
    gshmem.barrier_all()
    launch((1,), litmus_kernel, gtile.peer(data, nxt), gtile.peer(sig, nxt), data, sig, violations, LITMUS_ROUNDS,
           atomic, T)
    torch.cuda.synchronize()
    bad = int(violations.sum().item())
    final = int(sig.item())
    gshmem.barrier_all()
    expect(final == LITMUS_ROUNDS, f"the last flag is {final}, expected {LITMUS_ROUNDS}")
    expect(bad == 0, f"{bad} stale elements read after the flag (message-passing violations)")
    return f"{LITMUS_ROUNDS} rounds x {T} elements, 0 violations"


@check("cuTile litmus MP: put + signal_op (release) / signal_wait_until (acquire), 10^4 rounds")
def litmus_signal(me, n):
    return litmus(me, n, 0)


@check("cuTile litmus MP: put + ct.atomic_xchg(ACQ_REL, SYS) / acquire poll, 10^4 rounds")
def litmus_atomic(me, n):
    return litmus(me, n, 1)


@check("cuTile bulk CAS from every PE onto PE 0's table; bulk add, counts checked")
def bulk_cas(me, n):
    slots, blocks = 8 * T, 8
    table, counts = sym(slots, "int32"), sym(n, "int64")
    counters = sym(slots, "int32")
    order = ((torch.arange(slots, device="cuda", dtype=torch.int64) * 2654435761 + 977 * me) % slots)
    order = torch.argsort(order).to(torch.int32)  # a permutation, different per PE
    old = torch.empty(slots, device="cuda", dtype=torch.int32)
    gshmem.barrier_all()
    launch((blocks,), cas_kernel, gtile.peer(table, 0), order, old, me + 1, T)
    rounds = 10
    launch((blocks,), add_kernel, gtile.peer(counters, 0), order, rounds, T)
    torch.cuda.synchronize()
    won = int((old == 0).sum().item())
    gtile.peer(counts, 0)[me:me + 1].fill_(won)
    torch.cuda.synchronize()
    gshmem.barrier_all()
    if me == 0:
        per_pe = [int((table == pe + 1).sum().item()) for pe in range(n)]
        reported = counts.tolist()
        expect(int((table == 0).sum().item()) == 0, "a slot of the table was not claimed")
        expect(per_pe == reported, f"slots held per PE {per_pe}, CAS successes reported {reported}")
        expect(sum(reported) == slots, f"{sum(reported)} successes for {slots} slots")
        expect(bool((counters == n * rounds).all().item()),
               f"counters {counters.min().item()}..{counters.max().item()}, expected {n * rounds}")
    # Every PE: a slot it lost holds another PE's value.
    mine = torch.from_dlpack(gshmem.zeros(slots, "int32"))
    gshmem.barrier_all()
    mine.copy_(gtile.peer(table, 0))
    lost = old != 0
    expect(bool((mine[order.long()][lost] == old[lost]).all().item()), "a lost CAS returned a value the table lacks")
    expect(bool((mine[order.long()][~lost] == me + 1).all().item()), "a won CAS left another PE's value")
    gshmem.barrier_all()
    return f"{slots} slots, {n} PEs, successes {won} here; {n * rounds} adds a slot"


@check("cuTile wait_until_any / _all over a tile of flags, put_scatter, fence / quiet")
def any_all(me, n):
    nxt = (me + 1) % n
    flags, scratch = sym(T, "int64"), sym(1, "int64")
    out = torch.zeros(2, device="cuda", dtype=torch.int64)
    for r in (1, 2, 3):
        launch((1,), flags_kernel, gtile.peer(flags, nxt), scratch, r, T)
        launch((1,), any_all_kernel, flags, out, r, T)
        torch.cuda.synchronize()
        expect(0 <= out[0].item() < T and out[1].item() >= r, f"round {r}: any -> {out[0].item()}, all min "
               f"{out[1].item()}")
        gshmem.barrier_all()


@check("gshmem.tile.peer refuses a PE out of range and gives this PE's own tensor")
def peers(me, n):
    t = sym(4, "int32")
    try:
        gtile.peer(t, n)
    except ValueError as e:
        expect("n_pes()" in str(e), f"unexpected message: {e}")
    else:
        raise AssertionError("peer(t, n_pes()) did not raise")
    expect(gtile.peer(t, me) is t, "peer(t, my_pe()) is not t")
    other = gtile.peer(t, (me + 1) % n)
    expect(other.data_ptr() != t.data_ptr() and other.shape == t.shape, "the peer view is wrong")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timeout", type=int, default=200, help="watchdog seconds")
    args = ap.parse_args()
    faulthandler.dump_traceback_later(args.timeout, exit=True)
    me, n = init_checks(_missing, "gshmem.tile")
    say(f"cuda.tile {ct.__version__}")
    run_all((peers, ring, fused, gemm_epilogue, litmus_signal, litmus_atomic, bulk_cas, any_all), me, n, args.timeout)

if __name__ == "__main__":
    main()
