"""gshmem.tile without a GPU: cuTile kernels that call each routine are
compiled ahead of time for sm_90 (cuda.tile.compilation.export_kernel, which
runs tileiras) and their SASS (cuobjdump -sass) is checked for what the
module's docstring promises: weak data stores, then a block barrier and a
system-scope release before the signal; polls that are system-scope acquire
loads inside a loop that stays even when nothing uses the wait's result;
per-element system-scope atomics for the bulk forms. Also: a peer without a
mapping is refused by gshmem.tile.peer with a ValueError (against the
package's stand-ins, fake_torch.py). Run by the CTest entry python_tile_cpu;
needs cuda-tile, nvidia-cuda-tileiras and cuobjdump (nvidia-cuda-cuobjdump or
the CUDA toolkit), no GPU."""
import os
import re
import shutil
import subprocess
import sys

import pytest

ct = pytest.importorskip("cuda.tile")
from cuda.tile.compilation import (ArrayConstraint, CallingConvention, KernelSignature,  # noqa: E402
                                   ScalarConstraint, export_kernel)

import gshmem  # noqa: E402
import gshmem.tile as gtile  # noqa: E402

T = 256  # elements of a tile (two a thread for the compiler's 128 threads)


def _cuobjdump():
    candidates = []
    try:
        import nvidia.cu13
        candidates.append(os.path.join(nvidia.cu13.__path__[0], "bin", "cuobjdump"))
    except ImportError:
        pass
    found = shutil.which("cuobjdump")
    if found:
        candidates.append(found)
    candidates.append("/usr/local/cuda/bin/cuobjdump")
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


CUOBJDUMP = _cuobjdump()
if CUOBJDUMP is None:
    pytest.skip("no cuobjdump (pip install nvidia-cuda-cuobjdump, or the CUDA toolkit's)", allow_module_level=True)


@ct.kernel
def _one_routine(src, dst, sig, ivars, flags, scratch, idx, out, r, WHICH: ct.Constant[int]):
    if WHICH == 0:    # put_signal SET
        gtile.put_signal(dst, (0,), ct.load(src, (0,), shape=(T,)), sig, 0, r, gtile.SIGNAL_SET)
    elif WHICH == 1:  # signal_op ADD
        gtile.signal_op(sig, 0, r, gtile.SIGNAL_ADD)
    elif WHICH == 2:  # a kernel that ends in a wait
        gtile.signal_wait_until(sig, 0, gtile.CMP_GE, r)
    elif WHICH == 3:  # a wait, then the data it announced
        gtile.signal_wait_until(sig, 0, gtile.CMP_EQ, r)
        ct.store(out, (0,), ct.load(src, (0,), shape=(T,)))
    elif WHICH == 4:
        gtile.wait_until(ivars, 0, gtile.CMP_NE, 0)
    elif WHICH == 5:
        gtile.wait_until_all(flags, 0, (T,), gtile.CMP_EQ, r)
    elif WHICH == 6:
        ct.store(out, (0,), ct.astype(gtile.wait_until_any(flags, 0, (T,), gtile.CMP_GE, r), ct.float32))
    elif WHICH == 7:
        gtile.fence(scratch, 0)
    elif WHICH == 8:  # bulk CAS, acq_rel
        i = ct.load(idx, (0,), shape=(T,))
        old = gtile.atomic_cas(ivars, i, 0, r, ct.MemoryOrder.ACQ_REL)
        ct.store(out, (0,), ct.astype(old, ct.float32))
    elif WHICH == 9:  # bulk add, relaxed
        i = ct.load(idx, (0,), shape=(T,))
        gtile.atomic_add(ivars, i, 1, ct.MemoryOrder.RELAXED)
    elif WHICH == 10:  # scatter, then the signal
        i = ct.load(idx, (0,), shape=(T,))
        gtile.put_scatter(dst, i, ct.load(src, (0,), shape=(T,)))
        gtile.signal_op(sig, 0, r, gtile.SIGNAL_SET)
    elif WHICH == 11:
        gtile.quiet(scratch, 0)
    elif WHICH == 13:  # rounds of ring steps in one kernel (the benchmark's ring)
        for k in range(1, r + 1):
            gtile.put_signal(dst, (0,), ct.load(src, (0,), shape=(T,)), sig, 0, k, gtile.SIGNAL_SET)
            gtile.wait_until(scratch, 0, gtile.CMP_GE, k)
    elif WHICH == 12:  # a ring step: put_signal to the next PE, wait for this PE's
        gtile.put_signal(dst, (0,), ct.load(src, (0,), shape=(T,)), sig, 0, r, gtile.SIGNAL_SET)
        gtile.wait_until(scratch, 0, gtile.CMP_GE, r)
        ct.store(out, (0,), ct.load(src, (0,), shape=(T,)))


@ct.kernel
def _relaxed_poll(sig, r):
    # What gshmem.tile does not do, and why (the module's docstring): a loop
    # of RELAXED loads.
    v = ct.load(sig, (0,), shape=(), memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.SYS)
    while v < ct.astype(r, ct.uint64):
        v = ct.load(sig, (0,), shape=(), memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.SYS)
    ct.store(sig, (1,), v)


@ct.kernel
def _release_then_wait(src, dst_next, sig_next, sig, dst, out, r):
    # ring_kernel of python/tests/gpu/tile_checks.py with a RELEASE store.
    gtile.put(dst_next, (0,), ct.load(src, (0,), shape=(T,)))
    ct.store(sig_next, (0,), ct.astype(r, ct.uint64), memory_order=ct.MemoryOrder.RELEASE,
             memory_scope=ct.MemoryScope.SYS)
    gtile.signal_wait_until(sig, 0, gtile.CMP_GE, r)
    ct.store(out, (0,), ct.load(dst, (0,), shape=(T,)))


def _array(dtype):
    return ArrayConstraint(dtype, 1, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=(1,))


def _sass(kernel, params, tmp_path, name):
    signature = KernelSignature(params, CallingConvention.cutile_python_v1())
    cubin = tmp_path / f"{name}.cubin"
    export_kernel(kernel, [signature], str(cubin), gpu_code="sm_90", output_format="cubin")
    text = subprocess.run([CUOBJDUMP, "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout
    code = []
    for line in text.splitlines():
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m:
            code.append((int(m.group(1), 16), m.group(2).strip()))
    assert code, f"no SASS for {name}"
    return code


def _routine(which, tmp_path):
    params = [_array(ct.float32), _array(ct.float32), _array(ct.uint64), _array(ct.int32), _array(ct.int32),
              _array(ct.int64), _array(ct.int32), _array(ct.float32), ScalarConstraint(ct.int32), which]
    return _sass(_one_routine, params, tmp_path, f"routine{which}")


def _index(code, pattern, start=0):
    for i in range(start, len(code)):
        if re.search(pattern, code[i][1]):
            return i
    return None


def _all(code, pattern):
    return [i for i, (_, text) in enumerate(code) if re.search(pattern, text)]


ACQUIRE_LOAD = r"^(@!?P\d+ )?LDG\.E(\.64)?\.STRONG\.SYS "
RELEASE_FENCE = r"^(@!?P\d+ )?MEMBAR\.(ALL|SC)\.SYS"
SIGNAL_ATOM = r"^(@!?P\d+ )?ATOMG\.E\.EXCH\.64\.STRONG\.SYS "


def _poll_loop(code):
    """(first, last) instruction indexes of a backward branch's loop that
    holds an acquire load (LDG.STRONG.SYS, then CCTL.IVALL), or None."""
    for i, (address, text) in enumerate(code):
        m = re.match(r"(@!?P\d+ )?BRA (0x[0-9a-f]+)$", text)
        if not m:
            continue
        target = int(m.group(2), 16)
        if target >= address:
            continue
        first = next(j for j, (a, _) in enumerate(code) if a >= target)
        loads = [j for j in range(first, i) if re.search(ACQUIRE_LOAD, code[j][1])]
        if loads and _index(code[:i], r"CCTL\.IVALL", loads[0]) is not None:
            return first, i
    return None


def test_put_signal_weak_data_then_barrier_and_system_release(tmp_path):
    code = _routine(0, tmp_path)
    data = _all(code, r"^(@!?P\d+ )?STG\.E ")
    signal = _index(code, SIGNAL_ATOM)
    assert data, "the tile's stores (weak STG.E) are missing"
    assert signal is not None, "the signal's system-scope atomic exchange is missing"
    fence = _index(code, RELEASE_FENCE)
    barrier = _index(code, r"BAR\.SYNC")
    assert max(data) < barrier < fence < signal, \
        "expected the data stores, a block barrier, MEMBAR.SYS, then the signal"
    assert not _all(code, r"UTMA|UBLKCP"), "put must not use TMA (async proxy)"


def test_signal_then_wait_keeps_the_signal_first(tmp_path):
    # put_signal to the next PE, then a wait on this PE's signal: the signal
    # must be issued before the poll loop, or a ring of PEs hangs.
    code = _routine(12, tmp_path)
    signal = _index(code, SIGNAL_ATOM)
    loop = _poll_loop(code)
    assert signal is not None and loop is not None
    first_poll = _index(code, ACQUIRE_LOAD)
    assert signal < first_poll <= loop[1], "the signal was moved below the wait"


def test_rounds_of_ring_steps_signal_before_polling(tmp_path):
    # In a loop of rounds (as bench_tile_vs_triton_cuda.py's ring): the
    # first poll in the code must follow the first signal, and every poll
    # loop must hold acquire loads.
    code = _routine(13, tmp_path)
    signal = _index(code, SIGNAL_ATOM)
    first_poll = _index(code, ACQUIRE_LOAD)
    assert signal is not None and first_poll is not None and signal < first_poll, \
        "a poll comes before the first signal"
    assert _poll_loop(code) is not None


def test_release_store_signal_sinks_below_a_wait_with_this_tileiras(tmp_path):
    # Why signal_op is ACQ_REL (module docstring): with a RELEASE store,
    # tileiras 13.5 moves the signal below the following poll loop. Should
    # this fail, a newer tileiras keeps the order and RELEASE would do.
    params = [_array(ct.float32), _array(ct.float32), _array(ct.uint64), _array(ct.uint64), _array(ct.float32),
              _array(ct.float32), ScalarConstraint(ct.int32)]
    code = _sass(_release_then_wait, params, tmp_path, "release_then_wait")
    store = _index(code, r"STG\.E\.64\.STRONG\.SYS ")
    loop = _poll_loop(code)
    assert store is not None and loop is not None and store > loop[1], \
        "expected the release store after the poll loop"


def test_signal_add_is_a_system_release_atomic(tmp_path):
    code = _routine(1, tmp_path)
    atom = _index(code, r"(ATOMG|REDG)\.E\.ADD\.64\.STRONG\.SYS")
    assert atom is not None, "no system-scope 64-bit atomic add"
    fence = _index(code, RELEASE_FENCE)
    assert fence is not None and fence < atom, "no MEMBAR.SYS before the release add"


@pytest.mark.parametrize("which", [2, 3, 4, 5, 6])
def test_waits_poll_with_system_acquire_loads_in_a_loop(which, tmp_path):
    code = _routine(which, tmp_path)
    loop = _poll_loop(code)
    assert loop is not None, "no loop of LDG.STRONG.SYS + CCTL.IVALL (acquire at system scope): the wait is gone"
    # Weak loads of what the signal announced come after the loop.
    if which == 3:
        weak = [j for j in _all(code, r"^(@!?P\d+ )?LDG\.E ") if j > loop[1]]
        assert weak, "the data loads after the wait are missing"
        assert not [j for j in _all(code, r"^(@!?P\d+ )?LDG\.E ") if j < loop[0]], \
            "a data load was hoisted above the acquire loop"


def test_kernel_ending_in_a_wait_keeps_the_wait(tmp_path):
    # Without the anchor tileiras removes the whole loop (nothing uses it).
    code = _routine(2, tmp_path)
    assert _poll_loop(code) is not None
    assert _index(code, r"@P\d+ (ATOMG|REDG)\.E\.ADD\.64\.STRONG\.SYS") is not None, "the masked anchor is missing"


@pytest.mark.parametrize("which", [7, 11])
def test_fence_and_quiet_are_a_system_acq_rel_atomic(which, tmp_path):
    code = _routine(which, tmp_path)
    atom = _index(code, r"(ATOMG|REDG)\.E\.ADD\.64\.STRONG\.SYS")
    fence = _index(code, RELEASE_FENCE)
    assert atom is not None and fence is not None and fence < atom


def test_bulk_cas_is_per_element_system_atomics(tmp_path):
    code = _routine(8, tmp_path)
    cas = _all(code, r"ATOMG\.E\.CAS\.STRONG\.SYS")
    assert len(cas) >= 2, f"expected one CAS per element a thread holds (2 here), got {len(cas)}"
    for j in cas:  # acq_rel: each one after a MEMBAR.SYS
        assert _index(code[:j], RELEASE_FENCE) is not None


def test_bulk_add_relaxed_has_no_fence(tmp_path):
    code = _routine(9, tmp_path)
    assert _all(code, r"(ATOMG|REDG)\.E\.ADD\.STRONG\.SYS"), "no per-element system-scope add"
    assert not _all(code, RELEASE_FENCE), "a relaxed bulk add must not fence"


def test_scatter_is_weak_and_the_signal_releases_it(tmp_path):
    code = _routine(10, tmp_path)
    data = _all(code, r"^(@!?P\d+ )?STG\.E ")
    signal = _index(code, SIGNAL_ATOM)
    fence = _index(code, RELEASE_FENCE)
    assert data and signal is not None and fence is not None
    assert max(data) < fence < signal


def test_relaxed_poll_loop_is_not_usable_with_this_tileiras(tmp_path):
    # Why gshmem.tile polls with acquire loads only. Should this fail, a
    # newer tileiras keeps relaxed loads in loops: a relaxed poll becomes
    # possible (module docstring).
    code = _sass(_relaxed_poll, [_array(ct.uint64), ScalarConstraint(ct.int32)], tmp_path, "relaxed")
    loads = _all(code, r"LDG\.E\.64\.STRONG\.SYS ")
    self_loop = [a for a, text in code if re.fullmatch(rf"BRA {hex(a)}", text)
                 and a != code[-1][0] and any(t == "EXIT" for aa, t in code if aa > a)]
    assert len(loads) == 1 and self_loop, \
        f"expected one relaxed load and a branch to itself (loads: {len(loads)})"


# -------------------------------------------------------- peers without a mapping
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import fake_torch  # noqa: E402


@pytest.fixture
def job(monkeypatch):
    lib = fake_torch.FakeLibrary(gshmem._C)
    monkeypatch.setattr(gshmem, "_C", lib)
    monkeypatch.setitem(sys.modules, "torch", fake_torch.FakeTorch())
    monkeypatch.setattr(gshmem, "_torch_views", {})
    monkeypatch.setattr(gshmem, "_torch_types", set())
    monkeypatch.setattr(gshmem, "_generation", [0])
    return lib


def test_peer_without_a_mapping_is_refused(job):
    lib = job
    real_ptr = lib.ptr
    lib.ptr = lambda address, pe: 0 if pe == 1 else real_ptr(address, pe)  # PE 1 remote
    sig = fake_torch.Tensor(lib.block(8), (1,), "uint64")
    with pytest.raises(ValueError, match=r"PE 1 has no P2P mapping from PE 0 \(a remote peer\)"):
        gtile.peer(sig, 1)
    assert gtile.peer(sig, 0) is sig  # this PE's own copy: the tensor itself


def test_peer_checks_its_arguments(job):
    lib = job
    sig = fake_torch.Tensor(lib.block(8), (1,), "uint64")
    with pytest.raises(ValueError, match=r"pe: must be < n_pes\(\) \(2\), got 2"):
        gtile.peer(sig, 2)
    off_heap = fake_torch.Tensor(0x10000000, (1,), "uint64")
    with pytest.raises(ValueError, match="not CUDA memory on the symmetric heap"):
        gtile.peer(off_heap, 1)
