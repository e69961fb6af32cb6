"""gshmem.triton without a GPU: Triton kernels that call each routine are
compiled for sm_90 against the device library (gshmem_triton.ll), and the PTX
is checked for what gshmem's routines emit: the module's exported state, the
acquire polls, release signals, fences and CTA barriers, every call inlined.
Run by the CTest entry python_triton_cpu (pytest on this file); needs Triton,
no GPU (triton.compile with an explicit GPUTarget)."""
import re

import pytest

triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import gshmem.triton as gt  # noqa: E402

STATE = ".visible .const .align 8 .b8 gshmemi_device_state["


@triton.jit
def _one_routine(x, f, sig, i32, i64, u64, n, pe, WHICH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if WHICH == "ids":
        tl.store(x, gt.my_pe() * 1000 + gt.n_pes())
    elif WHICH == "ptr":
        remote = gt.ptr(f + offs, pe)
        tl.store(remote, tl.load(f + offs) * 2.0)
    elif WHICH == "put":
        gt.put(f, f + BLOCK, n * 4, pe)
    elif WHICH == "put_nbi":
        gt.put_nbi(f, f + BLOCK, n * 4, pe)
    elif WHICH == "put_signal_set":
        gt.put_signal(f, f + BLOCK, n * 4, sig, 7, gt.SIGNAL_SET, pe)
    elif WHICH == "put_signal_add":
        gt.put_signal(f, f + BLOCK, n * 4, sig, 1, gt.SIGNAL_ADD, pe)
    elif WHICH == "put_signal_nbi":
        gt.put_signal_nbi(f, f + BLOCK, n * 4, sig, 1, gt.SIGNAL_ADD, pe)
    elif WHICH == "signal_op_add":
        gt.signal_op(sig, 1, gt.SIGNAL_ADD, pe)
    elif WHICH == "signal_op_set":
        gt.signal_op(sig, 5, gt.SIGNAL_SET, pe)
    elif WHICH == "signal_wait_until":
        tl.store(x, gt.signal_wait_until(sig, gt.CMP_GE, 3).to(tl.int32))
    elif WHICH == "wait_int32":
        gt.wait_until(i32, gt.CMP_EQ, 3)
    elif WHICH == "wait_int64":
        gt.wait_until(i64, gt.CMP_NE, 0)
    elif WHICH == "wait_uint64":
        gt.wait_until(u64, gt.CMP_GT, 1)
    elif WHICH == "fence":
        gt.fence()
    elif WHICH == "quiet":
        gt.quiet()
    elif WHICH == "barrier_all":
        gt.barrier_all()
    elif WHICH == "sync_all":
        gt.sync_all()
    elif WHICH == "none":
        tl.store(x, n)
    elif WHICH == "bad_block_put":
        gt.put(f + offs, f + offs, n * 4, pe)
    elif WHICH == "bad_wait_type":
        gt.wait_until(f, gt.CMP_EQ, 1)


SIGNATURE = {"x": "*i32", "f": "*fp32", "sig": "*u64", "i32": "*i32", "i64": "*i64", "u64": "*u64", "n": "i32",
             "pe": "i32"}


def _ptx(which, extern_libs=True):
    src = ASTSource(fn=_one_routine, signature=SIGNATURE, constexprs={"WHICH": which, "BLOCK": 256})
    options = {"extern_libs": gt.extern_libs()} if extern_libs else {}
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options).asm["ptx"]


def _count(pattern, ptx):
    return len(re.findall(pattern, ptx))


def test_bitcode_is_shipped():
    libs = gt.extern_libs()
    assert list(libs) == [gt.LIB_NAME]
    with open(libs[gt.LIB_NAME], "r", encoding="utf-8") as f:
        text = f.read()
    # LLVM IR as text (readable by the LLVM of older Tritons), for NVPTX,
    # without what the rewrite removes.
    assert 'target triple = "nvptx64-nvidia-cuda"' in text
    assert "define " in text and "gshmem_triton_put" in text
    for gone in ("nvvm-reflect-ftz", "llvm.compiler.used", "nocreateundeforpoison", "llvm.errno.tbaa"):
        assert gone not in text, gone


# routine -> (PTX patterns that must each appear at least once)
EXPECTED = {
    # my_pe, n_pes: the state's fields my_pe (+4) and n_pes (+8).
    "ids": [r"ld\.const\.b32\s+%r\d+, \[gshmemi_device_state\+4\]", r"ld\.const\.b32\s+%r\d+, \[gshmemi_device_state\+8\]"],
    # gshmem_ptr: n_pes (+8), heap_base (+16), symmetric_span (+32), then
    # peer_base[pe] (+64, indexed), and the stores through the result.
    "ptr": [r"\[gshmemi_device_state\+8\]", r"\[gshmemi_device_state\+16\]", r"\[gshmemi_device_state\+32\]",
            r"ld\.const\.b64\s+%rd\d+, \[%r\d+\+64\]", r"st\.global"],
    # The CTA's copy (relaxed system-scope stores), then its barrier.
    "put": [r"st\.relaxed\.sys\.v2\.b64", r"bar\.sync\s+0"],
    "put_nbi": [r"st\.relaxed\.sys\.v2\.b64", r"bar\.sync\s+0"],
    # Data, CTA barrier, then the signal with release at system scope.
    "put_signal_set": [r"st\.relaxed\.sys\.v2\.b64", r"bar\.sync\s+0", r"st\.release\.sys\.b64"],
    "put_signal_add": [r"st\.relaxed\.sys\.v2\.b64", r"bar\.sync\s+0", r"red\.release\.sys\.global\.add\.u64"],
    "put_signal_nbi": [r"bar\.sync\s+0", r"red\.release\.sys\.global\.add\.u64"],
    # signal_op: CTA barrier, then a relaxed system-scope update.
    "signal_op_add": [r"bar\.sync\s+0", r"(atom|red)\.relaxed\.sys\.global\.add\.u64"],
    "signal_op_set": [r"bar\.sync\s+0", r"st\.volatile\.b64\s+\[%rd\d+\], 5;"],
    # Waits: acquire polls at system scope, of the ivar's width.
    "signal_wait_until": [r"ld\.acquire\.sys\.b64"],
    "wait_int32": [r"ld\.acquire\.sys\.b32"],
    "wait_int64": [r"ld\.acquire\.sys\.b64"],
    "wait_uint64": [r"ld\.acquire\.sys\.b64"],
    "fence": [r"fence\.acq_rel\.sys"],
    "quiet": [r"fence\.sc\.sys"],
    # The device barrier: quiet, release announcements, acquire polls, CTA barriers.
    "barrier_all": [r"fence\.sc\.sys", r"bar\.sync\s+0", r"ld\.acquire\.sys", r"release\.sys"],
    "sync_all": [r"bar\.sync\s+0", r"ld\.acquire\.sys", r"release\.sys"],
}


@pytest.mark.parametrize("which", sorted(EXPECTED))
def test_routine_ptx(which):
    ptx = _ptx(which)
    # The module's own copy of the state, under the name the loader finds.
    assert _count(re.escape(STATE), ptx) == 1, which
    # Everything inlined: no call into the library, nothing left unresolved.
    assert not re.search(r"call(\.uni)?\s[^;]*gshmem_triton_", ptx), which
    assert not re.search(r"\.func[^\n]*gshmem_triton_", ptx), which
    assert ".extern .func" not in ptx, which
    for pattern in EXPECTED[which]:
        assert re.search(pattern, ptx), f"{which}: no {pattern!r} in the PTX"


def test_signal_op_is_relaxed_and_put_signal_is_release():
    # signal_op promises no release (gshmemx_signal_op); put_signal does.
    # The remote-queue path of both has release operations of its own
    # (red.release ... max on the queue), so the signal's own forms are counted.
    assert _count(r"st\.release\.sys\.b64", _ptx("signal_op_set")) == 0
    assert _count(r"red\.release\.sys(\.global)?\.add\.u64", _ptx("signal_op_add")) == 0
    assert _count(r"red\.release\.sys(\.global)?\.add\.u64", _ptx("put_signal_add")) == 1


def test_kernel_without_gshmem_has_no_state():
    # Only what a kernel calls is linked: a kernel that calls no routine has
    # no state (the load hook then leaves its module alone).
    assert "gshmemi_device_state" not in _ptx("none")


def test_missing_extern_libs_is_an_error():
    with pytest.raises(Exception, match="gshmem_triton_fence"):
        _ptx("fence", extern_libs=False)


def test_block_arguments_to_a_cta_wide_routine_are_refused():
    with pytest.raises(Exception, match="put: arguments must be scalars"):
        _ptx("bad_block_put")


def test_wait_until_on_an_unsupported_type_is_refused():
    with pytest.raises(Exception, match="must point to int32, int64 or uint64"):
        _ptx("bad_wait_type")
