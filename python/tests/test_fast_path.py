"""The PyTorch fast path, without torch or a GPU: the package's calls run
against stand-ins (fake_torch.py) for PyTorch and for the extension module,
which record what would have been issued. Checked: a tensor is checked once
for many calls, the current stream is read as a raw handle after the first
call, what changes a tensor's description is checked anew, finalize() drops
what was learned, and every error is still raised with its message."""
import re
import sys

import pytest

import gshmem

import fake_torch
from fake_torch import MiB, Tensor


@pytest.fixture
def job(monkeypatch):
    """gshmem with a fake job of 2 PEs (this one PE 0) and a fake torch."""
    lib = fake_torch.FakeLibrary(gshmem._C)
    torch = fake_torch.FakeTorch()
    monkeypatch.setattr(gshmem, "_C", lib)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(gshmem, "_torch_raw_stream", None)
    monkeypatch.setattr(gshmem, "_torch_views", {})
    monkeypatch.setattr(gshmem, "_torch_types", set())
    monkeypatch.setattr(gshmem, "_scratch", None)
    monkeypatch.setattr(gshmem, "_generation", [0])
    checked = []
    real_view = gshmem._torch_view

    def counting_view(arg, t):
        checked.append((arg, t.data_ptr()))
        return real_view(arg, t)

    monkeypatch.setattr(gshmem, "_torch_view", counting_view)
    return lib, torch, checked


def _signal(lib):
    return Tensor(lib.block(8), (1,), "uint64")


def test_signal_loop_checks_the_signal_once(job):
    lib, torch, checked = job
    sig = _signal(lib)
    for i in range(1, 101):
        gshmem.signal_op(sig, i, 1, "set")
        gshmem.signal_wait_until(sig, "eq", i)
    assert checked == [("signal", sig.address)]
    assert lib.calls["ptr"] == 1 and lib.calls["my_pe"] == 1
    # The stream: torch.cuda.current_stream() once, then the raw handle.
    assert torch.calls["current_stream"] == 1
    assert torch.calls["_cuda_getCurrentRawStream"] == 200  # one check at the switch + 199 calls
    assert len(lib.issued) == 200
    assert lib.issued[0] == ("signal_op_on_stream", (sig.address, 1, gshmem.SIGNAL_SET, 1, torch.stream))
    assert lib.issued[-1] == ("signal_wait_until_on_stream", (sig.address, gshmem.CMP_EQ, 100, torch.stream))


def test_new_tensor_objects_over_the_same_memory_hit(job):
    # torch.from_dlpack / slicing give a new object every time: what was
    # learned is keyed on the description, not on the object.
    lib, torch, checked = job
    buf = Tensor(lib.block(MiB), (MiB,), "uint8")
    src = Tensor(0x10000000, (MiB,), "uint8")  # CUDA memory off the heap: a valid source
    sig = _signal(lib)
    for i in range(1, 51):
        gshmem.put_signal(buf[:8], src[:8], sig, i, 1)
        gshmem.put_signal(buf[:MiB], src[:MiB], sig, i, 1)
    assert len(checked) == 5  # dest 8 B and 1 MiB, source 8 B and 1 MiB, the signal
    name, args = lib.issued[-1]
    assert name == "putmem_signal_on_stream"
    assert args == (buf.address, src.address, MiB, sig.address, 50, gshmem.SIGNAL_SET, 1, torch.stream)


def test_every_op_takes_the_fast_path(job):
    lib, torch, checked = job
    sig = _signal(lib)
    ivars = Tensor(lib.block(64), (8,), "int32")
    result = Tensor(0x20000000, (8,), "uint64")
    dest = Tensor(lib.block(256), (64,), "float32")
    local = Tensor(0x30000000, (64,), "float32")
    for _ in range(3):
        gshmem.put(dest, local, 1)
        gshmem.get(local, dest, 1)
        gshmem.wait_until(sig, "ge", 1)
        gshmem.wait_until_all(ivars, gshmem.CMP_EQ, -1)
        gshmem.wait_until_any(ivars, "ne", 0, result[:1])
        gshmem.wait_until_some(ivars, "gt", 2, result, result[:1])
    assert len(checked) == 6  # sig, ivars, dest, local, result, result[:1]
    assert len(lib.issued) == 18


def test_changed_description_is_checked_again(job):
    lib, torch, checked = job
    sig = _signal(lib)
    gshmem.signal_op(sig, 1, 1)
    sig.dtype = fake_torch.DTYPES["int64"]  # as `sig.data = other` could
    with pytest.raises(ValueError, match=re.escape("signal: a signal is one uint64 element, got 1 x int64")):
        gshmem.signal_op(sig, 1, 1)
    sig.dtype = fake_torch.DTYPES["uint64"]
    sig.shape = fake_torch.Size((2,))  # resize_
    with pytest.raises(ValueError, match=re.escape("signal: a signal is one uint64 element, got 2 x uint64")):
        gshmem.signal_op(sig, 1, 1)
    m = Tensor(lib.block(64), (4, 4), "int32")
    gshmem.wait_until_all(m, "eq", 0)
    m.strides = (1, 4)  # t_(): same address, dtype and shape, not contiguous
    with pytest.raises(ValueError, match="ivars: not contiguous"):
        gshmem.wait_until_all(m, "eq", 0)
    m.strides = None
    m.address = 0x10000000  # set_ to memory off the heap
    with pytest.raises(ValueError, match=re.escape("ivars: not CUDA memory on the symmetric heap "
                                                   "(CUDA memory outside the symmetric heap)")):
        gshmem.wait_until_all(m, "eq", 0)


def test_errors_raise_every_time(job):
    # Each error twice: a failed check is not remembered as a pass.
    lib, torch, checked = job
    sig = _signal(lib)
    heap = lib.block(64)
    off_heap = Tensor(0x10000000, (1,), "uint64")
    host = Tensor(0x40000000, (1,), "uint64", device="cpu")
    cases = [
        (lambda: gshmem.signal_op(off_heap, 1, 1), ValueError,
         "signal: not CUDA memory on the symmetric heap (CUDA memory outside the symmetric heap)"),
        (lambda: gshmem.signal_wait_until(host, "eq", 1), ValueError,
         "signal: not CUDA memory on the symmetric heap (host memory)"),
        (lambda: gshmem.signal_op(Tensor(heap, (1,), "int64"), 1, 1), ValueError,
         "signal: a signal is one uint64 element, got 1 x int64"),
        (lambda: gshmem.signal_op(Tensor(heap, (2,), "uint64"), 1, 1), ValueError,
         "signal: a signal is one uint64 element, got 2 x uint64"),
        (lambda: gshmem.wait_until(Tensor(heap, (1,), "complex64"), "eq", 0), TypeError,
         "ivar: unsupported dtype torch.complex64"),
        (lambda: gshmem.wait_until(Tensor(heap, (1,), "float32"), "eq", 0), TypeError,
         "ivar: dtype float32 has no wait routines"),
        (lambda: gshmem.wait_until_all(Tensor(heap, (4, 4), "int32", strides=(1, 4)), "eq", 0), ValueError,
         "ivars: not contiguous"),
        (lambda: gshmem.put(Tensor(heap, (4,), "uint8"), host, 1), ValueError, "source: not CUDA memory"),
        (lambda: gshmem.put(Tensor(heap, (8,), "uint8"), Tensor(0x10000000, (4,), "uint8"), 1), ValueError,
         "dest and source: sizes differ (8 and 4 bytes)"),
        (lambda: gshmem.put(Tensor(heap, (4,), "int16"), Tensor(0x10000000, (8,), "uint8"), 1), TypeError,
         "dest and source: dtypes differ (int16 and uint8)"),
        (lambda: gshmem.signal_op(sig, 1, 2), ValueError, "pe: must be < n_pes() (2), got 2"),
        (lambda: gshmem.signal_op(sig, 1, -1), ValueError, "pe: must be >= 0, got -1"),
        (lambda: gshmem.signal_op(sig, 1, True), TypeError, "pe: expected an int, got bool"),
        (lambda: gshmem.signal_op(sig, -1, 1), ValueError, "value: must be >= 0, got -1"),
        (lambda: gshmem.signal_op(sig, 1 << 64, 1), ValueError, "value: must fit in 64 bits"),
        (lambda: gshmem.signal_op(sig, True, 1), TypeError, "value: expected an int, got bool"),
        (lambda: gshmem.signal_op(sig, 1, 1, sig_op="mul"), ValueError, "sig_op: expected 'set' or 'add'"),
        (lambda: gshmem.signal_op(sig, 1, 1, sig_op=True), ValueError, "sig_op: expected gshmem.SIGNAL_SET"),
        (lambda: gshmem.signal_wait_until(sig, "approx", 1), ValueError, "cmp: expected one of"),
        (lambda: gshmem.signal_wait_until(sig, True, 1), ValueError, "cmp: expected gshmem.CMP_*"),
        (lambda: gshmem.signal_wait_until(sig, "eq", 1, stream=-1), ValueError, "stream: a handle must be >= 0"),
        (lambda: gshmem.signal_wait_until(sig, "eq", 1, stream=False), TypeError, "stream: expected a CUDA stream"),
        (lambda: gshmem.signal_op(3, 1, 1), TypeError, "signal: expected a tensor"),
    ]
    gshmem.signal_op(sig, 1, 1)  # the signal itself is valid and now known
    for call, exc, text in cases:
        for _ in range(2):
            with pytest.raises(exc, match=re.escape(text)):
                call()
    assert len(lib.issued) == 1


def test_known_tensor_after_the_job_ended(job):
    # A view known to be symmetric does not skip the init check, and
    # finalize() forgets it: a later job's heap is checked anew.
    lib, torch, checked = job
    sig = _signal(lib)
    gshmem.signal_op(sig, 1, 1)
    lib.up = False  # the library's state, not the package's
    with pytest.raises(gshmem.GshmemError) as e:
        gshmem.signal_op(sig, 1, 1)
    assert e.value.code == -3
    lib.up = True
    gshmem.finalize()
    assert gshmem._torch_views == {}
    lib.up = True
    lib.heap += 1 << 30  # the next job's heap lies elsewhere
    with pytest.raises(ValueError, match="signal: not CUDA memory on the symmetric heap"):
        gshmem.signal_op(sig, 1, 1)


def test_host_tensors_are_checked_every_call(job):
    # Whether host memory is pinned can change: never kept.
    lib, torch, checked = job
    dest = Tensor(lib.block(16), (4,), "float32")
    host = Tensor(0x40000000, (4,), "float32", device="cpu", pinned=True)
    gshmem.put(dest, host, 1)
    gshmem.put(dest, host, 1)
    assert [a for a, _ in checked] == ["dest", "source", "source"]
    host.pinned = False
    with pytest.raises(ValueError, match="source: not CUDA memory"):
        gshmem.put(dest, host, 1)


def test_kept_views_are_bounded(job, monkeypatch):
    lib, torch, checked = job
    monkeypatch.setattr(gshmem, "_TORCH_VIEWS_MAX", 8)
    buf = Tensor(lib.block(1024), (1024,), "uint8")
    for n in range(1, 40):
        gshmem.wait_until_all(Tensor(buf.address, (n,), "int16"), "eq", 0)
        assert len(gshmem._torch_views) <= 8


def test_stream_without_torch_cuda(job, monkeypatch):
    lib, torch, checked = job
    sig = _signal(lib)
    monkeypatch.setitem(sys.modules, "torch", fake_torch.FakeTorch(cuda=False))
    gshmem.signal_wait_until(sig, "eq", 1)
    gshmem.signal_wait_until(sig, "eq", 1)
    assert [args[-1] for _, args in lib.issued] == [0, 0]
    assert gshmem._torch_raw_stream is None
    monkeypatch.delitem(sys.modules, "torch")
    gshmem.signal_wait_until(sig, "eq", 1)
    assert lib.issued[-1][1][-1] == 0


def test_stream_without_the_raw_getter(job, monkeypatch):
    # A PyTorch without torch._C._cuda_getCurrentRawStream: the Stream object every call.
    lib, torch, checked = job
    sig = _signal(lib)
    old = fake_torch.FakeTorch(stream=0x6000, raw_stream=False)
    monkeypatch.setitem(sys.modules, "torch", old)
    for _ in range(3):
        gshmem.signal_wait_until(sig, "eq", 1)
    assert old.calls["current_stream"] == 3
    assert [args[-1] for _, args in lib.issued] == [0x6000] * 3


def test_explicit_stream_is_not_the_current_one(job):
    lib, torch, checked = job
    sig = _signal(lib)
    gshmem.signal_wait_until(sig, "eq", 1, stream=0x7000)
    gshmem.signal_wait_until(sig, "eq", 1, stream=fake_torch.FakeTorch(stream=0x8000).cuda.current_stream())
    assert [args[-1] for _, args in lib.issued] == [0x7000, 0x8000]
    assert torch.calls["current_stream"] == 0
