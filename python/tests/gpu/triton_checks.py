"""gshmem.triton on GPUs, under torchrun (2 or more PEs):

    torchrun --nproc-per-node 2 python/tests/gpu/triton_checks.py

Triton kernels that call gshmem's device routines (gshmem.triton), checked
against data computed with PyTorch. Each check prints one line per PE,
"PASS <check>" or "FAIL <check>: why" (as torchrun_checks.py), and the
program exits non-zero when any check failed on this PE. Needs Triton and
the package's device library (gshmem_triton.ll); without them it prints
one FAIL line saying what is missing.
"""

import argparse
import faulthandler

import torch

import gshmem
from check_harness import check, expect, init_checks, run_all, say, sym

try:
    import triton
    import triton.language as tl
    import gshmem.triton as gt
    _missing = None
except (ImportError, FileNotFoundError) as e:  # reported after init, as a FAIL line
    _missing = str(e)

if _missing is None:
    @triton.jit
    def ring_kernel(src, dst, sig, out, round_, BLOCK: tl.constexpr):
        # Each CTA sends its tile to the next PE with its own signal, then
        # waits for the previous PE's tile and copies it out.
        pid = tl.program_id(0)
        me = gt.my_pe()
        nxt = (me + 1) % gt.n_pes()
        off = pid * BLOCK
        gt.put_signal(dst + off, src + off, BLOCK * 4, sig + pid, round_, gt.SIGNAL_SET, nxt)
        gt.signal_wait_until(sig + pid, gt.CMP_GE, round_)
        offs = off + tl.arange(0, BLOCK)
        tl.store(out + offs, tl.load(dst + offs))

    @triton.jit
    def fused_kernel(x, y, staging, dst, sig, out, alpha, round_, BLOCK: tl.constexpr):
        # A tile of alpha * x + y, computed here, stored into this PE's
        # symmetric staging buffer, then put (with its signal) into the next
        # PE's dst; then this PE's own incoming tile is read out.
        pid = tl.program_id(0)
        nxt = (gt.my_pe() + 1) % gt.n_pes()
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        z = alpha * tl.load(x + offs) + tl.load(y + offs)
        tl.store(staging + offs, z)
        gt.put_signal(dst + pid * BLOCK, staging + pid * BLOCK, BLOCK * 4, sig + pid, round_, gt.SIGNAL_SET, nxt)
        gt.signal_wait_until(sig + pid, gt.CMP_GE, round_)
        tl.store(out + offs, tl.load(dst + offs))

    @triton.jit
    def direct_kernel(x, dst, sig, out, alpha, round_, BLOCK: tl.constexpr):
        # The tile stored straight into the next PE's dst through gt.ptr, then
        # announced by a put_signal of 0 bytes (its release covers the CTA's
        # earlier stores).
        pid = tl.program_id(0)
        nxt = (gt.my_pe() + 1) % gt.n_pes()
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        tl.store(gt.ptr(dst + offs, nxt), alpha * tl.load(x + offs))
        gt.put_signal(dst, x, 0, sig + pid, round_, gt.SIGNAL_SET, nxt)
        gt.signal_wait_until(sig + pid, gt.CMP_GE, round_)
        tl.store(out + offs, tl.load(dst + offs))

    @triton.jit
    def ids_barrier_kernel(out, BLOCK: tl.constexpr):
        tl.store(out, gt.my_pe())
        tl.store(out + 1, gt.n_pes())
        gt.barrier_all()
        gt.sync_all()

    @triton.jit
    def ids_kernel(out, TAG: tl.constexpr):
        # Only the state's fields (no barrier: safe with a zeroed state).
        tl.store(out, gt.my_pe())
        tl.store(out + 1, gt.n_pes())

    @triton.jit
    def waits_kernel(i32, i64, u64, value):
        # The next PE's ivars get `value` (int32/int64 stored through gt.ptr
        # then quiet; uint64 by signal_op), then this PE waits for its own.
        nxt = (gt.my_pe() + 1) % gt.n_pes()
        tl.store(gt.ptr(i32, nxt), value)
        tl.store(gt.ptr(i64, nxt), value.to(tl.int64) << 33)
        gt.quiet()
        gt.signal_op(u64, value.to(tl.uint64), gt.SIGNAL_SET, nxt)
        gt.wait_until(i32, gt.CMP_EQ, value)
        gt.wait_until(i64, gt.CMP_EQ, value.to(tl.int64) << 33)
        gt.wait_until(u64, gt.CMP_GE, value.to(tl.uint64))
        gt.fence()


LIBS = None
BLOCK = 1024


@check("Triton ring: put_signal per CTA to the next PE, 20 rounds, 4 CTAs")
def ring(me, n):
    prv = (me - 1) % n
    ctas, rounds = 4, 20
    src = sym(ctas * BLOCK, "float32")
    dst = sym(ctas * BLOCK, "float32")
    sig = sym(ctas, "uint64")
    out = torch.empty(ctas * BLOCK, device="cuda")
    for r in range(1, rounds + 1):
        src.copy_(torch.arange(ctas * BLOCK, device="cuda", dtype=torch.float32) + 100000 * me + r)
        ring_kernel[(ctas,)](src, dst, sig, out, r, BLOCK=BLOCK, extern_libs=LIBS)
        want = torch.arange(ctas * BLOCK, device="cuda", dtype=torch.float32) + 100000 * prv + r
        expect(torch.equal(out, want), f"round {r}: got {out[:3].tolist()}..., expected {want[:3].tolist()}...")
        gshmem.barrier_all()  # the next round overwrites dst only after every PE read it
    return f"{len(gt._initialized_modules)} kernel module(s) set up by the load hook"


@check("Triton fused: alpha*x + y computed per tile, then put_signal to the next PE (== torch)")
def fused(me, n):
    prv = (me - 1) % n
    ctas = 8
    count = ctas * BLOCK
    x, y = sym(count, "float32"), sym(count, "float32")
    staging, dst = sym(count, "float32"), sym(count, "float32")
    sig = sym(ctas, "uint64")
    out = torch.empty(count, device="cuda")
    alpha = 0.5
    for r in range(1, 4):
        gen = torch.Generator(device="cuda").manual_seed(1000 * me + r)
        x.copy_(torch.randn(count, device="cuda", generator=gen))
        y.copy_(torch.randn(count, device="cuda", generator=gen))
        fused_kernel[(ctas,)](x, y, staging, dst, sig, out, alpha, r, BLOCK=BLOCK, extern_libs=LIBS)
        gen = torch.Generator(device="cuda").manual_seed(1000 * prv + r)
        px = torch.randn(count, device="cuda", generator=gen)
        py = torch.randn(count, device="cuda", generator=gen)
        want = alpha * px + py
        expect(torch.allclose(out, want, rtol=1e-6, atol=1e-6),
               f"round {r}: max error {(out - want).abs().max().item()}")
        gshmem.barrier_all()
    return f"{ctas} tiles of {BLOCK}, 3 rounds"


@check("Triton direct stores through gt.ptr announced by put_signal of 0 bytes")
def direct(me, n):
    prv = (me - 1) % n
    ctas = 4
    count = ctas * BLOCK
    x, dst = sym(count, "float32"), sym(count, "float32")
    sig = sym(ctas, "uint64")
    out = torch.empty(count, device="cuda")
    for r in range(1, 6):
        x.copy_(torch.arange(count, device="cuda", dtype=torch.float32) * (me + 1) + r)
        direct_kernel[(ctas,)](x, dst, sig, out, 3.0, r, BLOCK=BLOCK, extern_libs=LIBS)
        want = 3.0 * (torch.arange(count, device="cuda", dtype=torch.float32) * (prv + 1) + r)
        expect(torch.equal(out, want), f"round {r}: got {out[:3].tolist()}..., expected {want[:3].tolist()}...")
        gshmem.barrier_all()


@check("Triton my_pe / n_pes / barrier_all / sync_all")
def ids_barrier(me, n):
    out = torch.full((2,), -7, device="cuda", dtype=torch.int32)
    for _ in range(10):
        ids_barrier_kernel[(1,)](out, BLOCK=32, extern_libs=LIBS)
    torch.cuda.synchronize()
    expect(out.tolist() == [me, n], f"kernel saw my_pe, n_pes = {out.tolist()}, expected {[me, n]}")


@check("Triton wait_until int32 / int64 / uint64, ptr stores + quiet, signal_op")
def waits(me, n):
    i32, i64, u64 = sym(1, "int32"), sym(1, "int64"), sym(1, "uint64")
    for value in (5, 6, 7):
        waits_kernel[(1,)](i32, i64, u64, value, extern_libs=LIBS)
        torch.cuda.synchronize()
        expect(int(i32.item()) == value and int(i64.item()) == value << 33,
               f"ivars {int(i32.item())}, {int(i64.item())}; expected {value}, {value << 33}")
        gshmem.barrier_all()


@check("Triton kernel loaded without the load hook: zero state, then init_module fills it")
def explicit_init(me, n):
    gt.remove_load_hook()
    try:
        out = torch.full((2,), -7, device="cuda", dtype=torch.int32)
        kernel = ids_kernel[(1,)](out, TAG=1, extern_libs=LIBS)
        torch.cuda.synchronize()
        expect(out.tolist() == [0, 0], f"without init_module the kernel saw {out.tolist()}, expected the "
               "zeroed state [0, 0]")
        gt.init_module(kernel)
        ids_kernel[(1,)](out, TAG=1, extern_libs=LIBS)
        torch.cuda.synchronize()
        expect(out.tolist() == [me, n], f"after init_module the kernel saw {out.tolist()}, expected {[me, n]}")
    finally:
        gt.install_load_hook()


def main():
    global LIBS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timeout", type=int, default=240, help="watchdog seconds")
    args = ap.parse_args()
    faulthandler.dump_traceback_later(args.timeout, exit=True)
    me, n = init_checks(_missing, "gshmem.triton")
    LIBS = gt.extern_libs()
    say(f"triton {triton.__version__}, device library {LIBS[gt.LIB_NAME]}")
    run_all((ring, fused, direct, ids_barrier, waits, explicit_init), me, n, args.timeout)

if __name__ == "__main__":
    main()
