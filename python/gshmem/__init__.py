"""gshmem for Python: symmetric tensors and stream-ordered signals between GPUs.

A thin layer over libgshmem's C API (docs/python.md). Importable without
PyTorch and without a GPU; PyTorch is imported only where it is used (init
from torchrun's environment, the default stream).

Every routine checks its arguments and raises TypeError / ValueError naming the
argument and the problem; what the library refuses is raised as GshmemError,
which carries the library's error code.
"""

import os
import sys
import threading

from . import _gshmem as _C

__version__ = _C.version
__all__ = [
    "GshmemError", "get_unique_id", "init", "finalize", "is_initialized", "my_pe", "n_pes",
    "barrier_all", "quiet", "barrier_all_on_stream", "quiet_on_stream", "empty", "zeros", "peer", "free_pending", "put", "get", "put_signal",
    "signal_op", "signal_wait_until", "wait_until", "wait_until_all", "wait_until_any",
    "wait_until_some", "CMP_EQ", "CMP_NE", "CMP_GT", "CMP_GE", "CMP_LT", "CMP_LE", "SIGNAL_SET",
    "SIGNAL_ADD",
]

CMP_EQ, CMP_NE, CMP_GT = _C.CMP_EQ, _C.CMP_NE, _C.CMP_GT
CMP_GE, CMP_LT, CMP_LE = _C.CMP_GE, _C.CMP_LT, _C.CMP_LE
SIGNAL_SET, SIGNAL_ADD = _C.SIGNAL_SET, _C.SIGNAL_ADD
_CMPS = {"eq": CMP_EQ, "ne": CMP_NE, "gt": CMP_GT, "ge": CMP_GE, "lt": CMP_LT, "le": CMP_LE}
_SIG_OPS = {"set": SIGNAL_SET, "add": SIGNAL_ADD}
_CMP_VALUES = frozenset(_CMPS.values())


class GshmemError(RuntimeError):
    """An error the library reported: `code` is its GSHMEMX_ERROR_* value,
    `routine` the call that failed. The library logs the detailed cause on
    stderr (GSHMEM_DEBUG=WARN, the default)."""

    def __init__(self, routine, code, detail=None):
        self.routine = routine
        self.code = code
        text = f"{routine}: {_C.error_string(code)} (gshmem error {code})"
        if detail:
            text += f": {detail}"
        super().__init__(text)


def _check(routine, code, detail=None):
    if code != 0:
        raise GshmemError(routine, code, detail)


def _call(routine, fn, *args):
    """The init check, then the call (the arguments were checked already)."""
    if not _C.initialized():
        _require_init(routine)
    code = fn(*args)
    if code != 0:
        raise GshmemError(routine, code)


def _require_init(routine):
    if not _C.initialized():
        raise GshmemError(routine, _C.ERROR_NOT_INITIALIZED,
                          "call gshmem.init() first (or the job was finalized)")


# ------------------------------------------------------------------- init

def get_unique_id():
    """A new unique id (bytes) for a job started without a launcher gshmem
    knows: call it in one process, which must take part in the job, and hand
    the bytes to every process's init(unique_id=..., rank=..., world_size=...)."""
    code, uid = _C.get_unique_id()
    _check("gshmem.get_unique_id", code)
    return bytes(uid)


def _int_arg(name, value, low=None):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
    if low is not None and value < low:
        raise ValueError(f"{name}: must be >= {low}, got {value}")
    return value


def init(unique_id=None, rank=None, world_size=None, *, bootstrap=None, store=None, heap_size=0):
    """Initializes gshmem (collective over all processes of the job).

    - init(unique_id=uid, rank=r, world_size=n): from an explicit id (get_unique_id).
    - init(bootstrap="mpi"): under mpirun (the library's MPI bootstrap; no mpi4py needed).
    - init(bootstrap="single"): a job of one PE, no launcher.
    - init() / init(bootstrap="torchrun"): from torchrun's RANK, WORLD_SIZE,
      LOCAL_RANK; rank 0 makes the unique id and spreads it through a
      torch.distributed store (`store`, else the default process group's
      store, else a TCPStore at MASTER_ADDR:MASTER_PORT + 1). Without RANK in
      the environment, init() is gshmem_init (MPI under mpirun, else one PE).
    Selects the GPU LOCAL_RANK (torchrun) before the library does. heap_size:
    bytes per PE (0: GSHMEM_SYMMETRIC_SIZE or the library's default).
    """
    _int_arg("heap_size", heap_size, 0)
    if unique_id is not None:
        if bootstrap not in (None, "uniqueid"):
            raise ValueError(f"bootstrap: {bootstrap!r} conflicts with unique_id")
        if not isinstance(unique_id, (bytes, bytearray, memoryview)):
            raise TypeError(f"unique_id: expected bytes from gshmem.get_unique_id(), "
                            f"got {type(unique_id).__name__}")
        unique_id = bytes(unique_id)
        if len(unique_id) != _C.UNIQUEID_SIZE:
            raise ValueError(f"unique_id: expected {_C.UNIQUEID_SIZE} bytes (from gshmem.get_unique_id()), "
                             f"got {len(unique_id)}")
        if rank is None or world_size is None:
            raise ValueError("rank and world_size: both are required with unique_id")
        _int_arg("world_size", world_size, 1)
        _int_arg("rank", rank, 0)
        if rank >= world_size:
            raise ValueError(f"rank: must be < world_size ({world_size}), got {rank}")
        _check("gshmem.init", _C.init_unique_id(unique_id, rank, world_size, heap_size))
        return
    if rank is not None or world_size is not None:
        raise ValueError("rank and world_size: given without unique_id (torchrun's and mpirun's "
                         "come from the environment)")
    if bootstrap is None:
        bootstrap = "torchrun" if "RANK" in os.environ and "WORLD_SIZE" in os.environ else "default"
    if bootstrap == "torchrun":
        _init_torchrun(store, heap_size)
    elif bootstrap in ("mpi", "default"):
        if heap_size:
            raise ValueError("heap_size: not supported with bootstrap='mpi'; set GSHMEM_SYMMETRIC_SIZE")
        _check("gshmem.init", _C.init_default())
    elif bootstrap == "single":
        _check("gshmem.init", _C.init_single(heap_size))
    else:
        raise ValueError(f"bootstrap: expected 'torchrun', 'mpi', 'single' or 'uniqueid', got {bootstrap!r}")


def _env_int(name):
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"{name}: not in the environment (start the job with torchrun)")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name}: expected an integer in the environment, got {value!r}") from None


def _init_torchrun(store, heap_size):
    rank, world_size = _env_int("RANK"), _env_int("WORLD_SIZE")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    try:
        import torch  # only here: the package does not need PyTorch otherwise
        import torch.distributed as dist
    except ImportError as e:
        raise GshmemError("gshmem.init", _C.ERROR_INVALID_VALUE,
                          f"init from torchrun's environment needs torch ({e}); or pass unique_id, "
                          f"rank and world_size") from None
    if torch.cuda.is_available():
        # One GPU per local rank; with fewer GPUs than local ranks (PEs sharing
        # a GPU, GSHMEM_ALLOW_GPU_SHARING=1) the same wrap-around as the library's.
        torch.cuda.set_device(local_rank % torch.cuda.device_count())
    if store is None:
        if dist.is_available() and dist.is_initialized():
            store = dist.distributed_c10d._get_default_store()
        else:
            host = os.environ.get("MASTER_ADDR", "127.0.0.1")
            port = _env_int("MASTER_PORT") + 1
            store = dist.TCPStore(host, port, world_size, rank == 0)
    key = "gshmem/unique_id"
    if rank == 0:
        uid = get_unique_id()
        store.set(key, uid)
    else:
        uid = bytes(store.get(key))
    init(unique_id=uid, rank=rank, world_size=world_size, heap_size=heap_size)


def is_initialized():
    return bool(_C.initialized())


def my_pe():
    """This PE's number (GshmemError before init)."""
    _require_init("gshmem.my_pe")
    return _C.my_pe()


def n_pes():
    """The number of PEs (GshmemError before init)."""
    _require_init("gshmem.n_pes")
    return _C.n_pes()


def finalize():
    """Frees what is pending (free_pending), then ends gshmem (collective).
    Symmetric tensors still referenced must not be used afterwards."""
    global _scratch
    _require_init("gshmem.finalize")
    try:
        free_pending()
    finally:
        _C.finalize()
        _generation[0] += 1  # blocks of this job are gone with its heap
        _scratch = None
        _torch_views.clear()  # what was symmetric in this job's heap is not in the next
        with _lock:
            _pending.clear()


def barrier_all():
    """Host barrier (collective): waits for this PE's device work, then for
    every PE; then frees the symmetric tensors every PE has dropped
    (free_pending)."""
    _require_init("gshmem.barrier_all")
    _check("gshmem.barrier_all", _C.barrier_all())
    free_pending()


def quiet():
    """Completes this host thread's stores to peers and host RMA (not device
    work: see quiet_on_stream)."""
    _require_init("gshmem.quiet")
    _check("gshmem.quiet", _C.quiet())


# ------------------------------------------------------------- dtypes

# name -> (DLPack type code, bits, TYPENAME of the wait table or None)
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT, _DL_BOOL = 0, 1, 2, 4, 6
_DTYPES = {
    "int8": (_DL_INT, 8, None), "int16": (_DL_INT, 16, "short"), "int32": (_DL_INT, 32, "int32"),
    "int64": (_DL_INT, 64, "int64"), "uint8": (_DL_UINT, 8, None), "uint16": (_DL_UINT, 16, "ushort"),
    "uint32": (_DL_UINT, 32, "uint32"), "uint64": (_DL_UINT, 64, "uint64"),
    "float16": (_DL_FLOAT, 16, None), "float32": (_DL_FLOAT, 32, None), "float64": (_DL_FLOAT, 64, None),
    "bfloat16": (_DL_BFLOAT, 16, None), "bool": (_DL_BOOL, 8, None),
}
_BY_CODE = {(c, b): n for n, (c, b, _) in _DTYPES.items()}


def _dtype_name(dtype, arg="dtype"):
    """A dtype given as a string, a NumPy dtype or type, or a torch.dtype."""
    if isinstance(dtype, str):
        name = dtype
    else:
        name = getattr(dtype, "name", None)          # numpy.dtype
        if name is None and isinstance(dtype, type):
            name = getattr(dtype, "__name__", None)  # numpy.float32 and the like
        if name is None:
            text = str(dtype)                        # torch.float32
            name = text[len("torch."):] if text.startswith("torch.") else None
    aliases = {"float": "float32", "double": "float64", "half": "float16", "int": "int32",
               "long": "int64", "short": "int16", "bool_": "bool"}
    name = aliases.get(name, name)
    if name not in _DTYPES:
        raise TypeError(f"{arg}: unsupported dtype {dtype!r}; supported: {', '.join(sorted(_DTYPES))}")
    return name


# ----------------------------------------------------- symmetric memory

# Blocks whose last reference went, waiting for a collective point to be
# freed on every PE together (gshmem_free is collective).
_lock = threading.Lock()
_pending = []
_scratch = None


class _Block:
    """One symmetric allocation; the owner of the tensor over it."""

    __slots__ = ("address", "nbytes", "generation", "__weakref__")

    def __init__(self, address, nbytes):
        self.address, self.nbytes, self.generation = address, nbytes, _generation[0]

    def __del__(self):
        # Never a collective call here: Python runs this whenever the last
        # reference goes, at a different moment on every PE.
        if self.address and _generation[0] == self.generation and _C is not None:
            with _lock:
                _pending.append(self.address)


_generation = [0]


def _shape_arg(shape):
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"shape: expected an int or a sequence of ints, got {type(shape).__name__}") from None
    for i, d in enumerate(dims):
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"shape[{i}]: expected an int, got {type(d).__name__}")
        if d < 0:
            raise ValueError(f"shape[{i}]: must be >= 0, got {d}")
    return dims


def _allocate(routine, shape, dtype, zero):
    dims = _shape_arg(shape)
    name = _dtype_name(dtype)
    _require_init(routine)
    code, bits, _ = _DTYPES[name]
    count = 1
    for d in dims:
        count *= d
    nbytes = max(count * bits // 8, 1)  # gshmem_malloc(0) is NULL: keep one byte
    address, rc = _C.malloc(nbytes, zero)
    _check(routine, rc, f"{nbytes} bytes")
    block = _Block(address, nbytes)
    return _C.make_tensor(address, list(dims), code, bits, _C.current_device(), block)


def empty(shape, dtype="float32"):
    """A CUDA tensor (DLPack: torch.from_dlpack, cupy.from_dlpack, ...) on the
    symmetric heap, uninitialized. Collective: every PE calls with the same
    shape and dtype, in the same order."""
    return _allocate("gshmem.empty", shape, dtype, False)


def zeros(shape, dtype="float32"):
    """empty(), filled with zeros on every PE before it returns."""
    return _allocate("gshmem.zeros", shape, dtype, True)


def free_pending():
    """Collective: frees the symmetric tensors whose last reference went, when
    every PE has dropped the same ones; otherwise frees nothing and keeps them
    for the next collective point (barrier_all, finalize, a later call).
    Returns the number of blocks freed."""
    global _scratch
    _require_init("gshmem.free_pending")
    with _lock:
        blocks = sorted(set(_pending))
    if _scratch is None:
        address, rc = _C.malloc(6 * 8, True)
        _check("gshmem.free_pending", rc, "scratch for the agreement")
        _scratch = address
    total, mixed = 0, 0
    for a in blocks:
        total = (total + a) % (1 << 64)
        mixed ^= (a * 0x9E3779B97F4A7C15) % (1 << 64)
    agreed = _C.agree_on_set(_scratch, len(blocks), total, mixed)
    if agreed < 0:
        _check("gshmem.free_pending", agreed)
    if agreed == 0 or not blocks:
        return 0
    for a in blocks:  # the same addresses in the same order on every PE
        _check("gshmem.free_pending", _C.free(a), f"block at {a:#x}")
    with _lock:
        done = set(blocks)
        _pending[:] = [a for a in _pending if a not in done]
    return len(blocks)


class _View:
    """What the checks learn about a tensor argument. `symmetric`: the
    symmetric-heap check passed (set by _symmetric; a cached view keeps it)."""

    __slots__ = ("address", "shape", "nbytes", "dtype", "device_type", "contiguous", "count", "symmetric")

    def __init__(self):
        self.symmetric = False


# PyTorch tensors on the fast path. What the checks learn about a CUDA tensor
# (dtype name, size in bytes, contiguity, device type, and whether it lies on
# the symmetric heap) depends only on its data address, dtype, shape and
# contiguity, so it is kept in _torch_views under exactly those four, read
# again on every call (C getters of the tensor, no Python objects built but
# the shape): a later call with the same tensor, or with another one over the
# same memory described the same way, skips the checks' work but not their
# verdict. A tensor changed in place (resize_, set_, t_, .data = ...) in a
# way that matters changes one of the four and is checked anew. CUDA
# addresses are unique in a process (unified addressing), so an entry stays
# true when its tensor dies and another takes its memory; the one fact that
# changes with the heap, being symmetric, is dropped at finalize(). CPU
# tensors are checked on every call (whether host memory is pinned can
# change). Bounded: the dictionary is emptied when it reaches the limit.
_torch_views = {}
_TORCH_VIEWS_MAX = 4096
_torch_types = set()  # the classes seen to be PyTorch tensors


def _torch_class(arg, obj, cls):
    """Whether `cls` is a PyTorch tensor class (remembered); TypeError for
    what is no tensor at all."""
    if obj is None or isinstance(obj, (int, float, str, bytes, list, tuple, dict)):
        raise TypeError(f"{arg}: expected a tensor (an object with the DLPack protocol), "
                        f"got {cls.__name__}")
    if cls.__module__.startswith("torch") and hasattr(obj, "data_ptr"):
        _torch_types.add(cls)
        return True
    return False


def _view(arg, obj):
    cls = type(obj)
    if cls in _torch_types or _torch_class(arg, obj, cls):
        # PyTorch tensors are read directly: their __dlpack__ would record an
        # event on the current stream (and must not run in stream capture).
        if not obj.is_cuda:
            return _torch_view(arg, obj)
        key = (obj.data_ptr(), obj.dtype, obj.shape, obj.is_contiguous())
        v = _torch_views.get(key)
        if v is None:
            v = _torch_view(arg, obj)  # raises for what it cannot take; nothing kept
            if len(_torch_views) >= _TORCH_VIEWS_MAX:
                _torch_views.clear()
            _torch_views[key] = v
        return v
    try:
        address, shape, strides, code, bits, lanes, device_type, _ = _C.describe(obj)
    except TypeError:
        raise TypeError(f"{arg}: expected a tensor (an object with the DLPack protocol), "
                        f"got {type(obj).__name__}") from None
    v = _View()
    v.address, v.shape, v.device_type = address, tuple(shape), device_type
    if lanes != 1 or (code, bits) not in _BY_CODE:
        raise TypeError(f"{arg}: unsupported dtype (DLPack code {code}, {bits} bits, {lanes} lanes)")
    v.dtype = _BY_CODE[(code, bits)]
    v.count = 1
    for d in shape:
        v.count *= d
    v.nbytes = v.count * bits // 8
    expect, contiguous = 1, True
    for d, s in reversed(list(zip(shape, strides))):
        if d != 1 and s != expect:
            contiguous = False
        expect *= d
    v.contiguous = contiguous
    return v


_CUDA, _CUDA_HOST, _CUDA_MANAGED = 2, 3, 13


def _torch_view(arg, t):
    v = _View()
    name = str(t.dtype)[len("torch."):]
    if name not in _DTYPES:
        raise TypeError(f"{arg}: unsupported dtype {t.dtype}")
    v.dtype, v.address, v.shape = name, t.data_ptr(), tuple(t.shape)
    v.count = t.numel()
    v.nbytes = v.count * t.element_size()
    v.contiguous = t.is_contiguous()
    if t.device.type == "cuda":
        v.device_type = _CUDA
    else:
        v.device_type = _CUDA_HOST if t.is_pinned() else 1
    return v


def _symmetric(arg, obj):
    """A contiguous CUDA tensor on this PE's symmetric heap."""
    v = _view(arg, obj)
    if v.symmetric:  # a cached view that passed in this job (finalize() drops them)
        return v
    if v.device_type != _CUDA or not _C.initialized() or _C.ptr(v.address, _C.my_pe()) == 0:
        where = {1: "host memory"}.get(v.device_type, f"DLPack device type {v.device_type}")
        if v.device_type == _CUDA:
            _require_init("gshmem")  # CUDA memory: whether it is symmetric needs the heap
            where = "CUDA memory outside the symmetric heap"
        raise ValueError(f"{arg}: not CUDA memory on the symmetric heap ({where}); "
                         f"allocate it with gshmem.empty/zeros")
    if not v.contiguous:
        raise ValueError(f"{arg}: not contiguous")
    v.symmetric = True
    return v


def _local(arg, obj):
    """A contiguous buffer the copy engine reaches (CUDA or pinned memory)."""
    v = _view(arg, obj)
    if v.device_type not in (_CUDA, _CUDA_HOST, _CUDA_MANAGED):
        raise ValueError(f"{arg}: not CUDA memory (DLPack device type {v.device_type}); "
                         f"use a CUDA tensor or pinned host memory")
    if not v.contiguous:
        raise ValueError(f"{arg}: not contiguous")
    return v


def _pe_arg(pe):
    if type(pe) is not int or pe < 0:
        _int_arg("pe", pe, 0)
    n = _C.n_pes()  # -1 before init
    if 0 < n <= pe:
        raise ValueError(f"pe: must be < n_pes() ({n}), got {pe}")
    return pe


def peer(tensor, pe):
    """The tensor's copy on PE `pe`, as a CUDA tensor this PE loads and stores
    directly (P2P); keeps `tensor` alive. ValueError when `pe` is not
    reachable that way (another node)."""
    v = _symmetric("tensor", tensor)
    _pe_arg(pe)
    _require_init("gshmem.peer")
    address = _C.ptr(v.address, pe)
    if address == 0:
        raise ValueError(f"pe: PE {pe} is not directly reachable from PE {_C.my_pe()} (another node?)")
    code, bits, _ = _DTYPES[v.dtype]
    return _C.make_tensor(address, list(v.shape), code, bits, _C.current_device(), tensor)


# --------------------------------------------------------------- streams

# (torch._C._cuda_getDevice, torch._C._cuda_getCurrentRawStream) once the
# first current stream was read through torch.cuda.current_stream() (which
# initializes PyTorch's CUDA state) and the two gave the same handle: then
# the current stream is two C calls returning ints, no Stream object built.
_torch_raw_stream = None


def _stream(stream):
    """A cudaStream_t as an int: an int, an object with `cuda_stream` (torch,
    cupy) or `__cuda_stream__` (the CUDA stream protocol); None: PyTorch's
    current stream where torch is imported, else the legacy default stream."""
    if stream is None:
        fns = _torch_raw_stream
        if fns is not None:
            return fns[1](fns[0]())
        return _torch_current_stream()
    if type(stream) is int and stream >= 0:
        return stream
    if isinstance(stream, bool):
        raise TypeError("stream: expected a CUDA stream, got bool")
    if isinstance(stream, int):
        if stream < 0:
            raise ValueError(f"stream: a handle must be >= 0, got {stream}")
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        value = proto() if callable(proto) else proto
        if isinstance(value, tuple) and len(value) == 2:
            value = value[1]
        return _stream(int(value))
    handle = getattr(stream, "cuda_stream", None)
    if handle is not None:
        return _stream(int(handle))
    raise TypeError(f"stream: expected an int handle or an object with cuda_stream / __cuda_stream__, "
                    f"got {type(stream).__name__}")


def _torch_current_stream():
    """PyTorch's current stream the first time (and wherever the raw form is
    missing); 0 without torch or CUDA."""
    global _torch_raw_stream
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        return 0
    handle = torch.cuda.current_stream().cuda_stream
    c = getattr(torch, "_C", None)
    get_device = getattr(c, "_cuda_getDevice", None)
    raw = getattr(c, "_cuda_getCurrentRawStream", None)
    if get_device is not None and raw is not None and raw(get_device()) == handle:
        _torch_raw_stream = (get_device, raw)
    return handle


def _cmp_arg(cmp):
    if type(cmp) is int and cmp in _CMP_VALUES:
        return cmp
    if type(cmp) is str and cmp in _CMPS:
        return _CMPS[cmp]
    if isinstance(cmp, str):
        if cmp.lower() not in _CMPS:
            raise ValueError(f"cmp: expected one of {', '.join(_CMPS)}, got {cmp!r}")
        return _CMPS[cmp.lower()]
    if isinstance(cmp, bool) or not isinstance(cmp, int) or cmp not in _CMPS.values():
        raise ValueError(f"cmp: expected gshmem.CMP_* or one of {', '.join(_CMPS)}, got {cmp!r}")
    return cmp


def _sig_op_arg(sig_op):
    if type(sig_op) is str and sig_op in _SIG_OPS:
        return _SIG_OPS[sig_op]
    if isinstance(sig_op, str):
        if sig_op.lower() not in _SIG_OPS:
            raise ValueError(f"sig_op: expected 'set' or 'add', got {sig_op!r}")
        return _SIG_OPS[sig_op.lower()]
    if sig_op not in (SIGNAL_SET, SIGNAL_ADD) or isinstance(sig_op, bool):
        raise ValueError(f"sig_op: expected gshmem.SIGNAL_SET or SIGNAL_ADD, got {sig_op!r}")
    return sig_op


def _u64(arg, value):
    if type(value) is int and 0 <= value < 1 << 64:
        return value
    _int_arg(arg, value, 0)
    if value >= 1 << 64:
        raise ValueError(f"{arg}: must fit in 64 bits, got {value}")
    return value


def _signal_arg(arg, obj):
    v = _symmetric(arg, obj)
    if v.dtype != "uint64" or v.count != 1:
        raise ValueError(f"{arg}: a signal is one uint64 element, got {v.count} x {v.dtype}")
    return v


def _same_size(dest, source):
    if dest.nbytes != source.nbytes:
        raise ValueError(f"dest and source: sizes differ ({dest.nbytes} and {source.nbytes} bytes)")
    if dest.dtype != source.dtype:
        raise TypeError(f"dest and source: dtypes differ ({dest.dtype} and {source.dtype})")


# ------------------------------------------------- stream-ordered ops

def put(dest, source, pe, stream=None):
    """Copies `source` (this PE) into the symmetric `dest` on PE `pe`, in
    stream order (gshmemx_putmem_on_stream)."""
    d, s = _symmetric("dest", dest), _local("source", source)
    _same_size(d, s)
    _call("gshmem.put", _C.putmem_on_stream, d.address, s.address, d.nbytes, _pe_arg(pe), _stream(stream))


def get(dest, source, pe, stream=None):
    """Copies the symmetric `source` of PE `pe` into `dest` (this PE), in
    stream order (gshmemx_getmem_on_stream)."""
    d, s = _local("dest", dest), _symmetric("source", source)
    _same_size(d, s)
    _call("gshmem.get", _C.getmem_on_stream, d.address, s.address, d.nbytes, _pe_arg(pe), _stream(stream))


def put_signal(dest, source, signal, value, pe, sig_op=SIGNAL_SET, stream=None):
    """put(), then updates the uint64 `signal` on PE `pe` (SET or ADD
    `value`): a PE that sees the signal sees the data."""
    d, s = _symmetric("dest", dest), _local("source", source)
    sig = _signal_arg("signal", signal)
    _same_size(d, s)
    _call("gshmem.put_signal",
           _C.putmem_signal_on_stream, d.address, s.address, d.nbytes, sig.address, _u64("value", value),
                                      _sig_op_arg(sig_op), _pe_arg(pe), _stream(stream))


def signal_op(signal, value, pe, sig_op=SIGNAL_SET, stream=None):
    """Updates the uint64 `signal` on PE `pe` once the stream's earlier work
    is complete (release)."""
    sig = _signal_arg("signal", signal)
    _call("gshmem.signal_op", _C.signal_op_on_stream, sig.address, _u64("value", value), _sig_op_arg(sig_op),
                                                      _pe_arg(pe), _stream(stream))


def signal_wait_until(signal, cmp, value, stream=None):
    """The stream's later work waits until `signal` (this PE's) compares
    `cmp` to `value`."""
    sig = _signal_arg("signal", signal)
    _call("gshmem.signal_wait_until",
           _C.signal_wait_until_on_stream, sig.address, _cmp_arg(cmp), _u64("value", value), _stream(stream))


def _ivars(arg, obj):
    v = _symmetric(arg, obj)
    typename = _DTYPES[v.dtype][2]
    if typename is None:
        supported = sorted(n for n, t in _DTYPES.items() if t[2])
        raise TypeError(f"{arg}: dtype {v.dtype} has no wait routines; supported: {', '.join(supported)}")
    return v, typename


def _cmp_value(value, dtype):
    _int_arg("value", value)
    bits = _DTYPES[dtype][1]
    signed = _DTYPES[dtype][0] == _DL_INT
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not low <= value <= high:
        raise ValueError(f"value: {value} does not fit in {dtype}")
    return value if value < (1 << 63) else value - (1 << 64)  # the bits, as the C side takes them


def _status_arg(status, count):
    if status is None:
        return 0
    v = _local("status", status)
    if v.dtype != "int32" or v.count != count:
        raise ValueError(f"status: expected {count} int32 elements, got {v.count} x {v.dtype}")
    return v.address


def wait_until(ivar, cmp, value, stream=None):
    """The stream's later work waits until the one-element symmetric `ivar`
    compares `cmp` to `value`."""
    v, t = _ivars("ivar", ivar)
    if v.count != 1:
        raise ValueError(f"ivar: expected one element, got {v.count} (see wait_until_all/any/some)")
    _call("gshmem.wait_until",
           _C.wait_until_on_stream, t, v.address, _cmp_arg(cmp), _cmp_value(value, v.dtype), _stream(stream))


def wait_until_all(ivars, cmp, value, status=None, stream=None):
    """Waits until every element of `ivars` not excluded by `status` (int32,
    nonzero: skip) compares `cmp` to `value`."""
    v, t = _ivars("ivars", ivars)
    _call("gshmem.wait_until_all",
           _C.wait_until_all_on_stream, t, v.address, v.count, _status_arg(status, v.count), _cmp_arg(cmp),
                                       _cmp_value(value, v.dtype), _stream(stream))


def _result_arg(arg, obj, count):
    v = _local(arg, obj)
    if v.dtype != "uint64" or v.count < count:
        raise ValueError(f"{arg}: expected at least {count} uint64 elements (size_t), got {v.count} x {v.dtype}")
    return v.address


def wait_until_any(ivars, cmp, value, result, status=None, stream=None):
    """Waits until some element compares true; writes its index to `result`
    (one uint64 element, device-accessible) in stream order."""
    v, t = _ivars("ivars", ivars)
    _call("gshmem.wait_until_any",
           _C.wait_until_any_on_stream, t, v.address, v.count, _status_arg(status, v.count), _cmp_arg(cmp),
                                       _cmp_value(value, v.dtype), _result_arg("result", result, 1),
                                       _stream(stream))


def wait_until_some(ivars, cmp, value, indices, nresult, status=None, stream=None):
    """Waits until at least one element compares true; writes the indices of
    those that do to `indices` (uint64, len(ivars) elements) and their number
    to `nresult` (one uint64), in stream order."""
    v, t = _ivars("ivars", ivars)
    _call("gshmem.wait_until_some",
           _C.wait_until_some_on_stream, t, v.address, v.count, _result_arg("indices", indices, v.count),
                                        _status_arg(status, v.count), _cmp_arg(cmp), _cmp_value(value, v.dtype),
                                        _result_arg("nresult", nresult, 1), _stream(stream))


def quiet_on_stream(stream=None):
    """Every update the stream's earlier work made to any PE's heap is
    complete before its later work starts."""
    _call("gshmem.quiet_on_stream", _C.quiet_on_stream, _stream(stream))


def barrier_all_on_stream(stream=None):
    """Collective barrier in stream order (every PE, one stream each)."""
    _call("gshmem.barrier_all_on_stream", _C.barrier_all_on_stream, _stream(stream))
