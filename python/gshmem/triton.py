"""gshmem's device routines in Triton kernels (docs/python.md, "Triton").

    import gshmem, gshmem.triton as gt

    @triton.jit
    def ring(x, y, sig, n, BLOCK: tl.constexpr):
        me = gt.my_pe()
        gt.put_signal(y, x, n * 4, sig, 1, gt.SIGNAL_SET, (me + 1) % gt.n_pes())
        gt.signal_wait_until(sig, gt.CMP_EQ, 1)

    ring[(1,)](x, y, sig, n, BLOCK=1024, extern_libs=gt.extern_libs())

The routines are LLVM bitcode (gshmem_triton.ll, built from
device/triton/gshmem_triton.cu, shipped in this package) that Triton links
into the kernel: pass `extern_libs=gshmem.triton.extern_libs()` to every
launch (or compile) of a kernel that calls them. The idea, a device library
called through Triton's extern_elementwise, is Triton's own (libdevice), as
in Triton-distributed's NVSHMEM bindings.

Who calls. Triton runs a kernel's scalar code on every thread of the program
(CTA). put, put_nbi, put_signal, put_signal_nbi, signal_op, barrier_all and
sync_all are CTA-wide: every thread calls them with the same scalar
arguments (as Triton does), they synchronize the CTA, and the data is copied
by all its threads. my_pe, n_pes, ptr, the waits, fence and quiet are per
thread, and element-wise on tensors (ptr on a block of pointers gives the
peer's block of pointers, for tl.load / tl.store).

The state. A kernel that calls gshmem holds its own copy of the runtime
state (gshmemi_device_state), which gshmem fills once Triton loads the kernel:
importing this module adds a kernel-load hook to Triton that calls
gshmemx_cumodule_init on every loaded kernel that has the state (and
gshmemx_cumodule_finalize when Triton unloads it). init_module(kernel) does
the same by hand, for a kernel loaded while the hook was off.

Ordering: each routine keeps the guarantee of the gshmem routine it calls,
restated in device/triton/gshmem_triton.cu and below.
"""

import os

try:
    import triton
    import triton.language as tl
    from triton import knobs as _knobs
except ImportError as _e:  # noqa: N816
    raise ImportError(
        "gshmem.triton needs Triton (3.x, with triton.knobs; pip install triton): " + str(_e)) from _e

from . import _gshmem as _C
from . import GshmemError

__all__ = [
    "LIB_NAME", "bitcode_path", "extern_libs", "init_module", "install_load_hook", "remove_load_hook",
    "my_pe", "n_pes", "ptr", "put", "put_nbi", "put_signal", "put_signal_nbi", "signal_op",
    "signal_wait_until", "wait_until", "fence", "quiet", "barrier_all", "sync_all",
    "CMP_EQ", "CMP_NE", "CMP_GT", "CMP_GE", "CMP_LT", "CMP_LE", "SIGNAL_SET", "SIGNAL_ADD",
]

LIB_NAME = "gshmem"
_BITCODE = "gshmem_triton.ll"

# The constants, usable inside @triton.jit code.
CMP_EQ = tl.constexpr(_C.CMP_EQ)
CMP_NE = tl.constexpr(_C.CMP_NE)
CMP_GT = tl.constexpr(_C.CMP_GT)
CMP_GE = tl.constexpr(_C.CMP_GE)
CMP_LT = tl.constexpr(_C.CMP_LT)
CMP_LE = tl.constexpr(_C.CMP_LE)
SIGNAL_SET = tl.constexpr(_C.SIGNAL_SET)
SIGNAL_ADD = tl.constexpr(_C.SIGNAL_ADD)


def bitcode_path():
    """The path of the device library (gshmem_triton.ll, beside this file).
    FileNotFoundError, saying how to get it, where the package was built
    without it (no clang recent enough for the CUDA headers)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), _BITCODE)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"gshmem.triton: the device library {path} is missing: this gshmem was built without it "
            "(it needs clang 22 or later for the CUDA headers, found at configure time; or configure "
            "with -DGSHMEM_TRITON_BITCODE_FILE=<a gshmem_triton.ll built elsewhere from the same sources>)")
    return path


def extern_libs():
    """The `extern_libs` option for launching or compiling a kernel that calls
    these routines: {"gshmem": bitcode_path()}."""
    return {LIB_NAME: bitcode_path()}


# ------------------------------------------------------------ module state
_initialized_modules = set()


def _init_handle(module, routine):
    code = _C.cumodule_init(module)
    if code != 0:
        raise GshmemError(routine, code, "the runtime state could not be copied into the kernel's module")
    _initialized_modules.add(module)


def init_module(kernel):
    """Fills the runtime state of a compiled Triton kernel's module (what the
    load hook does for every kernel): `kernel` is what a launch or
    `warmup` returns (a CompiledKernel). Loads the kernel first if Triton has
    not yet. The copy is synchronous: launches after it read the state; the
    state is kept current (gshmem.init after this is fine). GshmemError where
    the kernel calls no gshmem routine or the copy failed."""
    if getattr(kernel, "module", None) is None:
        kernel._init_handles()
    module = kernel.module
    if module is None:
        raise ValueError("gshmem.triton.init_module: the kernel has no loaded module")
    if module not in _initialized_modules:
        _init_handle(module, "gshmem.triton.init_module")


def _on_kernel_load(module, function, name, metadata_group, hash):  # noqa: A002 (Triton's names)
    if module is None or module in _initialized_modules:
        return
    if _C.cumodule_has_state(module):
        _init_handle(module, f"gshmem.triton (loading kernel {name})")


def _on_kernel_unload(module, function, name, metadata_group, hash):  # noqa: A002
    if module in _initialized_modules:
        _initialized_modules.discard(module)
        _C.cumodule_finalize(module)


def _has_hook_chain(name):
    return hasattr(getattr(_knobs.runtime, name, None), "add")


def install_load_hook():
    """Adds the kernel-load and -unload hooks to Triton (done at import).
    Triton before 3.7 (3.6, PyTorch 2.11's) has the load hook and no unload
    hook: it never unloads a kernel's module either, so a module stays on
    gshmem's list, kept current, until gshmem finalizes."""
    if not _has_hook_chain("kernel_load_end_hook"):
        raise ImportError(f"gshmem.triton: this Triton ({triton.__version__}) has no hook chain "
                          "knobs.runtime.kernel_load_end_hook, which gshmem.triton uses to set up each loaded "
                          "kernel (Triton 3.6 and later have it)")
    _knobs.runtime.kernel_load_end_hook.add(_on_kernel_load)
    if _has_hook_chain("kernel_unload_hook"):
        _knobs.runtime.kernel_unload_hook.add(_on_kernel_unload)


def remove_load_hook():
    """Removes them; kernels loaded afterwards need init_module."""
    _knobs.runtime.kernel_load_end_hook.remove(_on_kernel_load)
    if _has_hook_chain("kernel_unload_hook"):
        _knobs.runtime.kernel_unload_hook.remove(_on_kernel_unload)


install_load_hook()


# -------------------------------------------------------- argument helpers
def _value(x, dtype, _semantic):
    x = tl.core._unwrap_if_constexpr(x)
    t = _semantic.to_tensor(x)
    return _semantic.cast(t, dtype)


def _address(p, routine, _semantic):
    p = tl.core._unwrap_if_constexpr(p)
    if not (isinstance(p, tl.tensor) and p.dtype.is_ptr()):
        raise TypeError(f"gshmem.triton.{routine}: expected a pointer, got {p!r}")
    return _semantic.cast(p, tl.uint64)


def _scalars(routine, *args):
    for a in args:
        if a.type.is_block():
            raise ValueError(f"gshmem.triton.{routine}: arguments must be scalars: every thread of the "
                             "program calls it with the same values (it is CTA-wide)")


def _call(symbol, args, ret, pure, _semantic):
    key = tuple(a.dtype for a in args)
    return tl.core.extern_elementwise(LIB_NAME, "", list(args), {key: (symbol, ret)}, is_pure=pure,
                                      _semantic=_semantic)


# ----------------------------------------------------------------- routines
@tl.core.extern
def my_pe(_semantic=None):
    """This PE's number (int32; -1 before gshmem.init). Per thread."""
    return _call("gshmem_triton_my_pe", [], tl.int32, True, _semantic)


@tl.core.extern
def n_pes(_semantic=None):
    """The number of PEs (int32). Per thread."""
    return _call("gshmem_triton_n_pes", [], tl.int32, True, _semantic)


@tl.core.extern
def ptr(dest, pe, _semantic=None):
    """gshmem_ptr: `dest` (symmetric pointers, scalar or block) as they live on
    PE `pe`, for tl.load / tl.store there; null where that PE is not directly
    reachable. Stores through it are ordinary stores: announce them with a
    later put_signal of the same CTA (its release covers the CTA's earlier
    stores), or order them with fence / quiet. Per thread, element-wise."""
    d = _address(dest, "ptr", _semantic)
    p = _value(pe, tl.int32, _semantic)
    r = _call("gshmem_triton_ptr", [d, p], tl.uint64, True, _semantic)
    return _semantic.cast(r, dest.dtype)


def _put(symbol, routine, dest, source, nbytes, pe, _semantic):
    args = [_address(dest, routine, _semantic), _address(source, routine, _semantic),
            _value(nbytes, tl.uint64, _semantic), _value(pe, tl.int32, _semantic)]
    _scalars(routine, *args)
    return _call(symbol, args, tl.int32, False, _semantic)


@tl.core.extern
def put(dest, source, nbytes, pe, _semantic=None):
    """CTA-wide gshmemx_putmem_block: nbytes from source (local) to dest
    (symmetric) on PE pe, copied by all the CTA's threads after a CTA
    barrier (so source may be what the CTA just stored with tl.store);
    returns when source may be reused. Ordered towards that PE by fence /
    quiet."""
    return _put("gshmem_triton_putmem_block", "put", dest, source, nbytes, pe, _semantic)


@tl.core.extern
def put_nbi(dest, source, nbytes, pe, _semantic=None):
    """As put, but source may be reused only after quiet."""
    return _put("gshmem_triton_putmem_nbi_block", "put_nbi", dest, source, nbytes, pe, _semantic)


def _put_signal(symbol, routine, dest, source, nbytes, sig, value, sig_op, pe, _semantic):
    args = [_address(dest, routine, _semantic), _address(source, routine, _semantic),
            _value(nbytes, tl.uint64, _semantic), _address(sig, routine, _semantic),
            _value(value, tl.uint64, _semantic), _value(sig_op, tl.int32, _semantic),
            _value(pe, tl.int32, _semantic)]
    _scalars(routine, *args)
    return _call(symbol, args, tl.int32, False, _semantic)


@tl.core.extern
def put_signal(dest, source, nbytes, sig, value, sig_op, pe, _semantic=None):
    """CTA-wide gshmemx_putmem_signal_block: after a CTA barrier (source may
    be what the CTA just stored), the CTA copies nbytes to PE pe,
    synchronizes, then one thread updates the uint64 signal `sig` there
    (SIGNAL_SET / SIGNAL_ADD) with release at system scope: a PE that sees
    the signal (signal_wait_until) sees the data and every store the CTA
    made before the call."""
    return _put_signal("gshmem_triton_putmem_signal_block", "put_signal", dest, source, nbytes, sig, value,
                       sig_op, pe, _semantic)


@tl.core.extern
def put_signal_nbi(dest, source, nbytes, sig, value, sig_op, pe, _semantic=None):
    """As put_signal (the same order of data and signal); source may be
    reused only after quiet."""
    return _put_signal("gshmem_triton_putmem_signal_nbi_block", "put_signal_nbi", dest, source, nbytes, sig,
                       value, sig_op, pe, _semantic)


@tl.core.extern
def signal_op(sig, value, sig_op, pe, _semantic=None):
    """CTA-wide: the CTA synchronizes, then its thread 0 updates the signal
    on PE pe (gshmemx_signal_op: SET a relaxed system-scope store, ADD a
    relaxed system-scope add). Relaxed: it does NOT order earlier stores
    before it; use put_signal to announce data."""
    args = [_address(sig, "signal_op", _semantic), _value(value, tl.uint64, _semantic),
            _value(sig_op, tl.int32, _semantic), _value(pe, tl.int32, _semantic)]
    _scalars("signal_op", *args)
    return _call("gshmem_triton_signal_op", args, tl.int32, False, _semantic)


@tl.core.extern
def signal_wait_until(sig, cmp, value, _semantic=None):
    """gshmem_signal_wait_until: waits until *sig <cmp> value, returns the
    value seen (uint64). Acquire at system scope: what a put_signal
    delivered before that value is visible to later loads. Per thread."""
    args = [_address(sig, "signal_wait_until", _semantic), _value(cmp, tl.int32, _semantic),
            _value(value, tl.uint64, _semantic)]
    return _call("gshmem_triton_signal_wait_until", args, tl.uint64, False, _semantic)


_WAIT_SYMBOLS = {tl.int32: "gshmem_triton_int32_wait_until", tl.int64: "gshmem_triton_int64_wait_until",
                 tl.uint64: "gshmem_triton_uint64_wait_until"}


@tl.core.extern
def wait_until(ivar, cmp, value, _semantic=None):
    """gshmem_TYPE_wait_until for int32, int64 and uint64 ivars (by the
    pointer's element type): waits until *ivar <cmp> value; acquire at
    system scope on return. Per thread."""
    ivar = tl.core._unwrap_if_constexpr(ivar)
    elem = ivar.dtype.element_ty if isinstance(ivar, tl.tensor) and ivar.dtype.is_ptr() else None
    if elem not in _WAIT_SYMBOLS:
        raise TypeError("gshmem.triton.wait_until: ivar must point to int32, int64 or uint64, "
                        f"got {ivar.dtype if isinstance(ivar, tl.tensor) else ivar!r}")
    args = [_address(ivar, "wait_until", _semantic), _value(cmp, tl.int32, _semantic),
            _value(value, elem, _semantic)]
    return _call(_WAIT_SYMBOLS[elem], args, tl.int32, False, _semantic)


@tl.core.extern
def fence(_semantic=None):
    """gshmem_fence: orders the thread's earlier puts, AMOs and signals to
    each PE before its later ones to that PE (fence.acq_rel.sys)."""
    return _call("gshmem_triton_fence", [], tl.int32, False, _semantic)


@tl.core.extern
def quiet(_semantic=None):
    """gshmem_quiet: the thread's earlier puts, AMOs, signals and stores are
    complete and visible to every PE before its later memory operations
    (fence.sc.sys)."""
    return _call("gshmem_triton_quiet", [], tl.int32, False, _semantic)


@tl.core.extern
def barrier_all(_semantic=None):
    """CTA-wide device barrier (gshmemx_barrier_all_block): quiet, then waits
    for every PE; every update the CTA issued before is visible to every PE
    when any PE returns. One CTA per PE at a time."""
    return _call("gshmem_triton_barrier_all", [], tl.int32, False, _semantic)


@tl.core.extern
def sync_all(_semantic=None):
    """CTA-wide gshmemx_sync_all_block: barrier_all without the quiet; the
    CTA's stores before it are visible to every PE after it."""
    return _call("gshmem_triton_sync_all", [], tl.int32, False, _semantic)
