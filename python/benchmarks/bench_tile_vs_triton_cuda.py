"""The ring and the fused kernel in cuTile (gshmem.tile), in Triton
(gshmem.triton) and in CUDA C (gshmem's device API), in the same job, under
torchrun with 2 or more PEs:

    torchrun --nproc-per-node 2 python/benchmarks/bench_tile_vs_triton_cuda.py [--rounds 200] [--out DIR]

The Triton and CUDA C kernels are bench_triton_vs_cuda.py's (ring_loop,
fused_loop, triton_vs_cuda.cu); the cuTile ones do the same work:
  ring   one block: `rounds` times, the buffer (nbytes, in tiles of up to
         4096 floats) stored into the next PE's copy, its signal set, then
         a wait for the previous PE's signal;
  fused  CTAS blocks: `rounds` times, each computes its tile of alpha*x + y,
         puts it (stored straight into the next PE's dst: in cuTile the
         computed tile is the put; Triton and CUDA C store it locally and
         copy it with put_signal) and signals, then waits for its own.
Rounds run inside one kernel; both PEs start each timed launch together
(gshmem.barrier_all); microseconds per round, the best of `repeats`
launches. Output on PE 0: a Markdown table (also DIR/tile_vs_triton_cuda.md
with --out). Needs Triton and nvcc (as bench_triton_vs_cuda.py); without gshmem.triton's device
library the Triton column is "-".
"""

import argparse
import ctypes
import os
import sys
import tempfile

import torch
import cuda.tile as ct

import gshmem
import gshmem.tile as gtile

import triton
from bench_triton_vs_cuda import CudaModule, fused_loop, ring_loop, timed  # the Triton and CUDA C sides
import gshmem.triton as gt

try:
    LIBS = gt.extern_libs()
    _no_triton = None
except FileNotFoundError as e:  # no device library in this build: the CUDA C and cuTile columns only
    _no_triton = str(e)


@ct.kernel
def ring_tile(src, dst_next, sig_next, sig, rounds, base, T: ct.Constant[int], TILES: ct.Constant[int]):
    for r in range(1, rounds + 1):
        for k in range(TILES):
            gtile.put(dst_next, (k,), ct.load(src, (k,), shape=(T,)))
        gtile.signal_op(sig_next, 0, base + r, gtile.SIGNAL_SET)
        gtile.signal_wait_until(sig, 0, gtile.CMP_GE, base + r)


@ct.kernel
def fused_tile(x, y, dst_next, sig_next, sig, alpha, rounds, base, T: ct.Constant[int]):
    b = ct.bid(0)
    a = ct.astype(alpha, ct.float32)
    for r in range(1, rounds + 1):
        z = a * ct.load(x, (b,), shape=(T,)) + ct.load(y, (b,), shape=(T,))
        gtile.put_signal(dst_next, (b,), z, sig_next, b, base + r, gtile.SIGNAL_SET)
        gtile.signal_wait_until(sig, b, gtile.CMP_GE, base + r)


def sym(count, dtype):
    return torch.from_dlpack(gshmem.zeros(count, dtype))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    gshmem.init()
    me, n = gshmem.my_pe(), gshmem.n_pes()
    nxt, prv = (me + 1) % n, (me - 1) % n
    rounds, repeats = args.rounds, args.repeats
    stream = torch.cuda.current_stream()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        cuda = CudaModule(workdir)
        bases = {}

        def next_base(kind):
            b = bases.get(kind, 0)
            bases[kind] = b + rounds
            return b

        for nbytes in (8, 4096, 65536, 1 << 20):
            count = nbytes // 4
            tile = min(count, 4096)
            src, dst = sym(count, "float32"), sym(count, "float32")
            src.copy_(torch.arange(count, device="cuda", dtype=torch.float32) + me)
            sig_k, sig_t, sig_c = sym(1, "uint64"), sym(1, "uint64"), sym(1, "uint64")
            dst_next, sig_next = gtile.peer(dst, nxt), gtile.peer(sig_k, nxt)
            bases.clear()

            def tile_launch():
                ct.launch(stream, (1,), ring_tile, (src, dst_next, sig_next, sig_k, rounds, next_base("tile"), tile,
                                                    count // tile))

            tile_launch()  # compile and load
            k_us = timed(tile_launch, rounds, repeats)
            gshmem.barrier_all()
            want = torch.arange(count, device="cuda", dtype=torch.float32) + prv
            if not torch.equal(dst, want):
                print(f"[PE {me}] cuTile ring {nbytes} B: the data received is wrong", flush=True)
                sys.exit(1)
            t_us = None
            if _no_triton is None:
                ring_loop[(1,)](src, dst, sig_t, nbytes, rounds, next_base("triton"), extern_libs=LIBS)
                t_us = timed(lambda: ring_loop[(1,)](src, dst, sig_t, nbytes, rounds, next_base("triton"),
                                                     extern_libs=LIBS), rounds, repeats)
            c_us = timed(lambda: cuda.launch("ring_cuda", 1, 128, src.data_ptr(), dst.data_ptr(), sig_c.data_ptr(),
                                             ctypes.c_ulonglong(nbytes), ctypes.c_int(rounds),
                                             ctypes.c_ulonglong(next_base("cuda"))), rounds, repeats)
            rows.append(("ring, 1 block", f"{nbytes} B", k_us, t_us, c_us))
            gshmem.barrier_all()

        alpha = 0.5
        for ctas, tile in ((8, 1024), (32, 4096)):
            count = ctas * tile
            x, y = sym(count, "float32"), sym(count, "float32")
            staging, dst = sym(count, "float32"), sym(count, "float32")
            sig_k, sig_t, sig_c = sym(ctas, "uint64"), sym(ctas, "uint64"), sym(ctas, "uint64")
            x.copy_(torch.arange(count, device="cuda", dtype=torch.float32) + me)
            y.fill_(float(me))
            dst_next, sig_next = gtile.peer(dst, nxt), gtile.peer(sig_k, nxt)
            bases.clear()

            def tile_launch():
                ct.launch(stream, (ctas,), fused_tile, (x, y, dst_next, sig_next, sig_k, alpha, rounds,
                                                        next_base("tile"), tile))

            tile_launch()
            k_us = timed(tile_launch, rounds, repeats)
            gshmem.barrier_all()
            want = alpha * (torch.arange(count, device="cuda", dtype=torch.float32) + prv) + prv
            if not torch.allclose(dst, want):
                print(f"[PE {me}] cuTile fused {ctas}x{tile}: the data received is wrong "
                      f"(max error {(dst - want).abs().max().item()})", flush=True)
                sys.exit(1)
            t_us = None
            if _no_triton is None:
                fused_loop[(ctas,)](x, y, staging, dst, sig_t, alpha, rounds, next_base("triton"), BLOCK=tile,
                                    extern_libs=LIBS)
                t_us = timed(lambda: fused_loop[(ctas,)](x, y, staging, dst, sig_t, alpha, rounds,
                                                         next_base("triton"), BLOCK=tile, extern_libs=LIBS),
                             rounds, repeats)
            c_us = timed(lambda: cuda.launch("fused_cuda", ctas, 128, x.data_ptr(), y.data_ptr(), staging.data_ptr(),
                                             dst.data_ptr(), sig_c.data_ptr(), ctypes.c_float(alpha),
                                             ctypes.c_int(tile), ctypes.c_int(rounds),
                                             ctypes.c_ulonglong(next_base("cuda"))), rounds, repeats)
            gshmem.barrier_all()
            rows.append((f"fused scaled add, {ctas} blocks", f"{tile * 4} B/tile", k_us, t_us, c_us))
        cuda.close()

    if me == 0:
        lines = [f"# cuTile / Triton / CUDA C, {n} PEs, {torch.cuda.get_device_name()}, cuda.tile {ct.__version__}, "
                 f"triton {triton.__version__ if _no_triton is None else '- (' + _no_triton[:80] + ')'}, "
                 f"{rounds} rounds per launch, best of {repeats}, us/round",
                 "| kernel | size | cuTile | Triton | CUDA C | cuTile / CUDA C | Triton / CUDA C |",
                 "| --- | --- | --- | --- | --- | --- | --- |"]
        for kernel, size, k_us, t_us, c_us in rows:
            t = "-" if t_us is None else f"{t_us:.2f}"
            tr = "-" if t_us is None else f"{t_us / c_us:.2f}"
            lines.append(f"| {kernel} | {size} | {k_us:.2f} | {t} | {c_us:.2f} | {k_us / c_us:.2f} | {tr} |")
        print("\n".join(lines), flush=True)
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "tile_vs_triton_cuda.md"), "w") as f:
                f.write("\n".join(lines) + "\n")
    gshmem.barrier_all()
    gshmem.finalize()


if __name__ == "__main__":
    main()
