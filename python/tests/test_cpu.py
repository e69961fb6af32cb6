"""Tests of the Python package that need no GPU: import, version, errors
before init, init without a GPU, and the argument checks of every routine."""
import os
import re
import subprocess
import sys

import pytest

import gshmem


# ------------------------------------------------------------ import, version

def test_import_without_torch():
    # A fresh interpreter: importing gshmem imports no torch.
    code = "import sys, gshmem; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_version_is_the_library_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", gshmem.__version__)
    expected = os.environ.get("GSHMEM_EXPECT_VERSION")
    if expected:
        assert gshmem.__version__ == expected


def test_imported_from_where_expected():
    # python_pip_install: the package pip installed, not the build tree's copy.
    expected = os.environ.get("GSHMEM_EXPECT_PACKAGE_DIR")
    if expected:
        assert os.path.dirname(os.path.realpath(gshmem.__file__)) == os.path.realpath(expected)
        extension = [f for f in os.listdir(expected) if f.startswith("_gshmem")]
        assert extension, f"no extension module in {expected}"


def test_error_is_a_runtime_error():
    assert issubclass(gshmem.GshmemError, RuntimeError)


# ---------------------------------------------------------- before init

@pytest.mark.parametrize("call", [
    gshmem.my_pe, gshmem.n_pes, gshmem.finalize, gshmem.barrier_all, gshmem.quiet,
    gshmem.free_pending, gshmem.quiet_on_stream, gshmem.barrier_all_on_stream,
    lambda: gshmem.empty((4,), "float32"), lambda: gshmem.zeros(8, "uint64"),
])
def test_use_before_init_raises(call):
    assert not gshmem.is_initialized()
    with pytest.raises(gshmem.GshmemError) as e:
        call()
    assert e.value.code == -3
    assert "not initialized" in str(e.value).lower() or "init" in str(e.value)


# ------------------------------------------------------ init without a GPU

def test_init_single_without_gpu_raises_library_error():
    with pytest.raises(gshmem.GshmemError) as e:
        gshmem.init(bootstrap="single")
    assert e.value.code < 0
    assert e.value.routine == "gshmem.init"
    # The message is the library's text for its code.
    assert gshmem._C.error_string(e.value.code) in str(e.value)
    assert not gshmem.is_initialized()


def test_init_again_after_failure_raises_again():
    # The process lives on after a failed init (the library never exits).
    for _ in range(2):
        with pytest.raises(gshmem.GshmemError):
            gshmem.init(bootstrap="single")


def test_init_from_unique_id_without_gpu_raises():
    # The id is the library's socket rendezvous: made without NCCL or a GPU.
    uid = gshmem.get_unique_id()
    assert isinstance(uid, bytes) and len(uid) == gshmem._C.UNIQUEID_SIZE
    assert gshmem.get_unique_id() != uid
    with pytest.raises(gshmem.GshmemError) as e:
        gshmem.init(unique_id=uid, rank=0, world_size=1)
    assert e.value.code == -5  # GSHMEMX_ERROR_NO_DEVICE: the bootstrap ran, then no GPU


_TWO_PE_JOB = """
import os, sys, gshmem
rank = int(sys.argv[1])
if rank == 0:
    uid = gshmem.get_unique_id()          # this process hosts the rendezvous
    sys.stdout.write(uid.hex() + "\\n"); sys.stdout.flush()
else:
    uid = bytes.fromhex(sys.stdin.readline().strip())
try:
    gshmem.init(unique_id=uid, rank=rank, world_size=2)
    print("initialized")
except gshmem.GshmemError as e:
    print("code", e.code)
"""


def test_two_processes_from_one_unique_id_agree_without_gpu():
    # Two processes join one job through the socket bootstrap; without a GPU
    # both get the same error from init (agreed over the bootstrap), no hang.
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", GSHMEM_BOOTSTRAP_TIMEOUT="20")
    pe0 = subprocess.Popen([sys.executable, "-c", _TWO_PE_JOB, "0"], stdout=subprocess.PIPE, text=True, env=env)
    uid_hex = pe0.stdout.readline()
    pe1 = subprocess.Popen([sys.executable, "-c", _TWO_PE_JOB, "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True, env=env)
    out1, _ = pe1.communicate(uid_hex, timeout=60)
    out0, _ = pe0.communicate(timeout=60)
    assert out0.strip().splitlines()[-1] == "code -5", out0
    assert out1.strip().splitlines()[-1] == "code -5", out1


def test_init_torchrun_env_without_torch(monkeypatch):
    if "torch" in sys.modules or _has_torch():
        pytest.skip("torch is installed: this checks the message without it")
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    with pytest.raises(gshmem.GshmemError, match="needs torch"):
        gshmem.init()


def _has_torch():
    import importlib.util
    return importlib.util.find_spec("torch") is not None


@pytest.mark.parametrize("kwargs, exc, text", [
    (dict(unique_id="abc", rank=0, world_size=1), TypeError, "unique_id: expected bytes"),
    (dict(unique_id=b"x" * 3, rank=0, world_size=1), ValueError, "unique_id: expected"),
    (dict(unique_id=b"x" * 132), ValueError, "rank and world_size"),
    (dict(unique_id=b"x" * 132, rank=2, world_size=2), ValueError, "rank: must be < world_size"),
    (dict(unique_id=b"x" * 132, rank=-1, world_size=2), ValueError, "rank: must be >= 0"),
    (dict(unique_id=b"x" * 132, rank=0, world_size=0), ValueError, "world_size: must be >= 1"),
    (dict(unique_id=b"x" * 132, rank="0", world_size=1), TypeError, "rank: expected an int"),
    (dict(rank=0, world_size=2), ValueError, "given without unique_id"),
    (dict(bootstrap="carrier-pigeon"), ValueError, "bootstrap: expected"),
    (dict(bootstrap="single", heap_size=-1), ValueError, "heap_size: must be >= 0"),
])
def test_init_argument_checks(kwargs, exc, text):
    if "unique_id" in kwargs and isinstance(kwargs["unique_id"], bytes) and len(kwargs["unique_id"]) == 132:
        kwargs = dict(kwargs, unique_id=b"x" * gshmem._C.UNIQUEID_SIZE)
    with pytest.raises(exc, match=re.escape(text)):
        gshmem.init(**kwargs)


def test_init_torchrun_bad_environment(monkeypatch):
    monkeypatch.setenv("RANK", "zero")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(ValueError, match="RANK: expected an integer"):
        gshmem.init(bootstrap="torchrun")


# ------------------------------------------------------- allocation checks

@pytest.mark.parametrize("shape, dtype, exc, text", [
    ((-1, 2), "float32", ValueError, "shape[0]: must be >= 0"),
    ((2, 2.5), "float32", TypeError, "shape[1]: expected an int"),
    (None, "float32", TypeError, "shape: expected an int or a sequence"),
    ((4,), "complex64", TypeError, "dtype: unsupported dtype"),
    ((4,), object, TypeError, "dtype: unsupported dtype"),
])
def test_allocation_argument_checks(shape, dtype, exc, text):
    with pytest.raises(exc, match=re.escape(text)):
        gshmem.empty(shape, dtype)


def test_dtypes_accepted_before_init():
    np = pytest.importorskip("numpy")
    # Valid arguments get as far as the init check.
    for dtype in ("float32", np.float16, np.dtype("int64"), "bfloat16", "uint64", "bool"):
        with pytest.raises(gshmem.GshmemError):
            gshmem.zeros((2, 3), dtype)


# ------------------------------------------------- tensor and stream checks

def test_numpy_array_is_not_symmetric():
    np = pytest.importorskip("numpy")
    a = np.zeros(4, dtype=np.uint64)
    sig = np.zeros(1, dtype=np.uint64)
    heap = "not CUDA memory on the symmetric heap (host memory)"
    cases = [
        (lambda: gshmem.put(a, a, 0, stream=0), "dest: " + heap),
        # get's dest is this side's buffer: CUDA or pinned memory, not the heap
        (lambda: gshmem.get(a, a, 0, stream=0), "dest: not CUDA memory"),
        (lambda: gshmem.put_signal(a, a, sig, 1, 0, stream=0), "dest: " + heap),
        (lambda: gshmem.signal_op(sig, 1, 0, stream=0), "signal: " + heap),
        (lambda: gshmem.signal_wait_until(sig, "ge", 1, stream=0), "signal: " + heap),
        (lambda: gshmem.wait_until(sig, gshmem.CMP_EQ, 1, stream=0), "ivar: " + heap),
        (lambda: gshmem.wait_until_all(a, "eq", 1, stream=0), "ivars: " + heap),
        (lambda: gshmem.wait_until_any(a, "eq", 1, sig, stream=0), "ivars: " + heap),
        (lambda: gshmem.wait_until_some(a, "eq", 1, a, sig, stream=0), "ivars: " + heap),
        (lambda: gshmem.peer(a, 0), "tensor: " + heap),
    ]
    for call, text in cases:
        with pytest.raises(ValueError, match=re.escape(text)):
            call()


def test_put_source_host_memory_rejected():
    np = pytest.importorskip("numpy")
    a = np.zeros(4, dtype=np.float32)
    with pytest.raises(ValueError, match=r"dest: not CUDA memory on the symmetric heap \(host memory\)"):
        gshmem.put(a, a, 0, stream=0)


@pytest.mark.parametrize("obj, name", [(None, "NoneType"), (3, "int"), ([1, 2], "list"), (object(), "object")])
def test_non_tensors_rejected(obj, name):
    with pytest.raises(TypeError, match=f"dest: expected a tensor .*got {name}"):
        gshmem.put(obj, obj, 0, stream=0)


def test_unsupported_dtype_rejected():
    np = pytest.importorskip("numpy")
    c = np.zeros(2, dtype=np.complex64)
    with pytest.raises(TypeError, match="ivar: unsupported dtype"):
        gshmem.wait_until(c, "eq", 0, stream=0)


class _TorchLikeStream:
    cuda_stream = 0


class _ProtocolStream:
    def __cuda_stream__(self):
        return (0, 0)


def test_stream_forms():
    assert gshmem._stream(0) == 0
    assert gshmem._stream(1234) == 1234
    assert gshmem._stream(_TorchLikeStream()) == 0
    assert gshmem._stream(_ProtocolStream()) == 0
    with pytest.raises(TypeError, match="stream: expected an int handle"):
        gshmem._stream("s")
    with pytest.raises(ValueError, match="stream: a handle must be >= 0"):
        gshmem._stream(-1)
    with pytest.raises(TypeError, match="stream: expected a CUDA stream, got bool"):
        gshmem._stream(True)


def test_stream_checked_in_ops():
    with pytest.raises(TypeError, match="stream: expected an int handle"):
        gshmem.quiet_on_stream(stream="s")


@pytest.mark.parametrize("cmp, ok", [("eq", True), ("GE", True), (gshmem.CMP_NE, True),
                                     ("approx", False), (99, False), (True, False)])
def test_cmp_values(cmp, ok):
    if ok:
        assert gshmem._cmp_arg(cmp) in (gshmem.CMP_EQ, gshmem.CMP_GE, gshmem.CMP_NE)
    else:
        with pytest.raises(ValueError, match="cmp: expected"):
            gshmem._cmp_arg(cmp)


def test_sig_op_and_values():
    assert gshmem._sig_op_arg("add") == gshmem.SIGNAL_ADD
    with pytest.raises(ValueError, match="sig_op: expected"):
        gshmem._sig_op_arg("mul")
    with pytest.raises(ValueError, match="value: must be >= 0"):
        gshmem._u64("value", -1)
    with pytest.raises(ValueError, match="value: must fit in 64 bits"):
        gshmem._u64("value", 1 << 64)
    with pytest.raises(ValueError, match="value: 32768 does not fit in int16"):
        gshmem._cmp_value(1 << 15, "int16")


def test_pe_checked():
    with pytest.raises(ValueError, match="pe: must be >= 0"):
        gshmem._pe_arg(-1)
    with pytest.raises(TypeError, match="pe: expected an int"):
        gshmem._pe_arg(1.0)


def test_non_contiguous_rejected():
    np = pytest.importorskip("numpy")
    a = np.zeros((4, 4), dtype=np.float32)[:, ::2]
    with pytest.raises(ValueError, match="source: not CUDA memory"):
        gshmem._local("source", a)  # host memory is refused before contiguity
    v = gshmem._view("x", a)
    assert not v.contiguous and v.dtype == "float32" and v.shape == (4, 2)


def test_view_describes_numpy():
    np = pytest.importorskip("numpy")
    v = gshmem._view("x", np.zeros((2, 3), dtype=np.uint16))
    assert (v.shape, v.dtype, v.nbytes, v.contiguous, v.device_type) == ((2, 3), "uint16", 12, True, 1)


def test_wait_dtypes_follow_type_table():
    # The wait routines the package maps its dtypes to exist in the C type table.
    table = set(gshmem._C.sync_typenames())
    for name, (_, _, typename) in gshmem._DTYPES.items():
        if typename is not None:
            assert typename in table, name


def test_dropped_block_waits_for_a_collective_point():
    # A block whose last reference goes is queued, never freed on the spot
    # (gshmem_free is collective; destructors run at different times on PEs).
    block = gshmem._Block(0x1000, 8)
    before = list(gshmem._pending)
    del block
    assert gshmem._pending == before + [0x1000]
    gshmem._pending.remove(0x1000)
    # Blocks of a finalized job are not queued.
    old = gshmem._Block(0x2000, 8)
    gshmem._generation[0] += 1
    del old
    assert 0x2000 not in gshmem._pending


def test_torch_tensors_checked_without_dlpack():
    torch = pytest.importorskip("torch")
    t = torch.zeros(4, dtype=torch.int16)
    v = gshmem._view("x", t)
    assert (v.dtype, v.nbytes, v.device_type) == ("int16", 8, 1)
    with pytest.raises(ValueError, match="dest: not CUDA memory on the symmetric heap"):
        gshmem.put(t, t, 0, stream=0)


def test_cumodule_init_refuses_what_is_not_a_module_with_the_state():
    # gshmemx_cumodule_init (what gshmem.triton's load hook calls): a NULL
    # module, and finalize of a module never set up, are refused by name.
    assert gshmem._C.cumodule_init(0) == gshmem._C.ERROR_INVALID_VALUE
    assert gshmem._C.cumodule_finalize(0x1234) == gshmem._C.ERROR_INVALID_VALUE
    assert gshmem._C.cumodule_has_state(0) is False


def test_triton_module_fails_clearly_without_triton():
    # A fresh interpreter in which `triton` cannot be imported.
    code = ("import sys; sys.modules['triton'] = None\n"
            "try:\n    import gshmem.triton\nexcept ImportError as e:\n    print('ImportError:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "gshmem.triton needs Triton" in out.stdout, out.stdout + out.stderr


def test_triton_device_library_shipped_where_built():
    # GSHMEM_EXPECT_TRITON_BITCODE=1 (set by CTest where the build made the
    # device library): the package, as built or as pip installed it, has it.
    if os.environ.get("GSHMEM_EXPECT_TRITON_BITCODE") != "1":
        pytest.skip("this build has no Triton device library (no clang recent enough)")
    path = os.path.join(os.path.dirname(os.path.realpath(gshmem.__file__)), "gshmem_triton.ll")
    assert os.path.isfile(path), f"{path} is missing"
    with open(path, "r", encoding="utf-8") as f:
        assert 'target triple = "nvptx64-nvidia-cuda"' in f.read()  # LLVM IR as text
