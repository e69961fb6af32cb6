"""Stand-ins for the parts of PyTorch and of the extension module that the
gshmem package reads, so that its PyTorch path runs on a machine without
torch or a GPU: the CPU tests (test_fast_path.py) and the host-overhead
benchmark (python/benchmarks/bench_host_overhead.py).

- FakeTorch: a module object to put in sys.modules["torch"]: torch.cuda's
  is_available / current_stream / is_initialized and torch._C's raw stream
  getters, each counting its calls.
- Tensor: a tensor over an address, with the methods the package calls
  (data_ptr, is_cuda, dtype, shape, is_contiguous, numel, element_size,
  device, is_pinned); its class reports the module "torch", as PyTorch's do.
- FakeLibrary: the extension module with a job of `n_pes` PEs already
  initialized, a symmetric heap at [heap, heap + heap_size), and the
  on-stream routines recorded instead of run; everything else is the real
  module's.
"""

import collections
import types

MiB = 1 << 20


class dtype:
    def __init__(self, name, itemsize):
        self.name, self.itemsize = name, itemsize

    def __repr__(self):
        return f"torch.{self.name}"


DTYPES = {name: dtype(name, size) for name, size in [
    ("uint8", 1), ("int8", 1), ("int16", 2), ("uint16", 2), ("int32", 4), ("uint32", 4), ("int64", 8),
    ("uint64", 8), ("float16", 2), ("bfloat16", 2), ("float32", 4), ("float64", 8), ("bool", 1),
    ("complex64", 8)]}


class Size(tuple):
    pass


class _Device:
    def __init__(self, type_):
        self.type = type_


class Tensor:
    """A row-major tensor of `shape` at `address`; `strides` in elements
    (default: contiguous). Its metadata may be changed in place, as PyTorch's
    resize_ / t_ / .data = ... do."""

    def __init__(self, address, shape, dtype_="uint64", device="cuda", strides=None, pinned=False):
        self.address = address
        self.dtype = DTYPES[dtype_] if isinstance(dtype_, str) else dtype_
        self._shape, self._strides = Size(shape), None
        self.strides = strides
        self.device = _Device(device)
        self.pinned = pinned

    # Contiguity is worked out when the shape or strides change, so that
    # is_contiguous() costs a call, as PyTorch's (a flag of the tensor) does.
    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, value):
        self._shape = Size(value)
        self._update()

    @property
    def strides(self):
        return self._strides

    @strides.setter
    def strides(self, value):
        self._strides = tuple(value) if value is not None else None
        self._update()

    def _update(self):
        step, self._contiguous = 1, True
        for d, s in reversed(list(zip(self._shape, self.stride()))):
            if d != 1 and s != step:
                self._contiguous = False
            step *= d

    def data_ptr(self):
        return self.address

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def numel(self):
        n = 1
        for d in self._shape:
            n *= d
        return n

    def element_size(self):
        return self.dtype.itemsize

    def stride(self):
        if self._strides is not None:
            return self._strides
        out, step = [], 1
        for d in reversed(self._shape):
            out.append(step)
            step *= d
        return tuple(reversed(out))

    def is_contiguous(self):
        return self._contiguous

    def is_pinned(self):
        return self.pinned

    def __getitem__(self, index):
        """A 1-D slice t[a:b]: a new tensor object over the same memory."""
        start, stop, _ = index.indices(self.shape[0])
        return Tensor(self.address + start * self.dtype.itemsize, (stop - start,), self.dtype, self.device.type)


Tensor.__module__ = "torch"  # PyTorch's tensor classes live in torch.*


class FakeTorch(types.ModuleType):
    """sys.modules["torch"]: CUDA available (or not), a current stream whose
    handle is `stream`, counters of what was called."""

    def __init__(self, stream=0x5000, cuda=True, raw_stream=True, count=True):
        super().__init__("torch")
        self.calls = collections.Counter()
        self.stream = stream
        fake = self

        class _Stream:
            def __init__(self):
                self.cuda_stream = fake.stream

        def is_available():
            fake.calls["is_available"] += 1
            return cuda

        def current_stream():
            fake.calls["current_stream"] += 1
            return _Stream()

        def get_device():
            fake.calls["_cuda_getDevice"] += 1
            return 0

        def raw(device):
            fake.calls["_cuda_getCurrentRawStream"] += 1
            return fake.stream

        self.cuda = types.SimpleNamespace(is_available=is_available, current_stream=current_stream,
                                          is_initialized=lambda: cuda)
        if not count:  # for timing: the getters alone
            get_device, raw = (lambda: 0), (lambda device: stream)
        self._C = types.SimpleNamespace()
        if raw_stream:
            self._C._cuda_getDevice = get_device
            self._C._cuda_getCurrentRawStream = raw
        self.Tensor = Tensor


class FakeLibrary(types.SimpleNamespace):
    """The extension module `real` with a job already up: PE `me` of `n_pes`,
    the symmetric heap at [heap, heap + heap_size). The on-stream routines
    return 0 and append (name, args) to `issued`; `calls` counts the calls of
    initialized, my_pe, n_pes and ptr. record=False (for timing): neither."""

    ON_STREAM = ("putmem_on_stream", "getmem_on_stream", "putmem_signal_on_stream", "signal_op_on_stream",
                 "signal_wait_until_on_stream", "wait_until_on_stream", "wait_until_all_on_stream",
                 "wait_until_any_on_stream", "wait_until_some_on_stream", "quiet_on_stream",
                 "barrier_all_on_stream")

    def __init__(self, real, me=0, n_pes=2, heap=0x7F0000000000, heap_size=64 * MiB, record=True):
        super().__init__(**{k: getattr(real, k) for k in dir(real) if not k.startswith("__")})
        self.up, self.me, self.size = True, me, n_pes
        self.heap, self.heap_size = heap, heap_size
        self.calls = collections.Counter()
        self.issued = []
        self.next_block = heap
        lib = self

        for name in self.ON_STREAM:
            if record:
                def routine(*args, _name=name):
                    lib.issued.append((_name, args))
                    return 0
            else:
                def routine(*args):
                    return 0
            setattr(self, name, routine)

        def initialized():
            lib.calls["initialized"] += 1
            return lib.up

        def my_pe():
            lib.calls["my_pe"] += 1
            return lib.me if lib.up else -1

        def n_pes():
            lib.calls["n_pes"] += 1
            return lib.size if lib.up else -1

        def ptr(address, pe):
            lib.calls["ptr"] += 1
            inside = lib.up and lib.heap <= address < lib.heap + lib.heap_size
            return address if inside and pe == lib.me else (address + 1 if inside else 0)

        def malloc(nbytes, zero):
            address, lib.next_block = lib.next_block, lib.next_block + ((nbytes + 511) // 512) * 512
            return address, 0

        def finalize():
            lib.up = False

        if not record:
            def initialized():
                return lib.up

            def n_pes():
                return lib.size if lib.up else -1

        self.initialized, self.my_pe, self.n_pes, self.ptr = initialized, my_pe, n_pes, ptr
        self.malloc, self.finalize = malloc, finalize
        self.free = lambda address: 0
        self.agree_on_set = lambda scratch, count, total, mixed: 1

    def block(self, nbytes):
        """An address on the heap, as gshmem.empty would give."""
        address, _ = self.malloc(nbytes, False)
        return address
