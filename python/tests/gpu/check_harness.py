"""What the torchrun check programs share (torchrun_checks.py,
triton_checks.py, tile_checks.py): one line per check and PE, "PASS <check>
(detail) [s]" or "FAIL <check>: why" with the traceback, the start (init,
2 or more PEs) and the run of the checks with the closing verdict. torchrun
puts the program's folder first on sys.path, so they import this by name.
"""

import faulthandler
import os
import sys
import time
import traceback

import torch

import gshmem

results = []  # (check name, passed), in the order run


def say(text):
    print(f"[PE {os.environ.get('RANK', '?')}] {text}", flush=True)


def check(name):
    """Decorator: runs the check, records PASS or FAIL (with the exception)."""
    def wrap(fn):
        def run(*args):
            start = time.perf_counter()
            try:
                detail = fn(*args)
                results.append((name, True))
                say(f"PASS {name}" + (f" ({detail})" if detail else "") +
                    f" [{time.perf_counter() - start:.2f} s]")
            except Exception as e:  # noqa: BLE001 - every failure is reported the same way
                results.append((name, False))
                say(f"FAIL {name}: {type(e).__name__}: {e}")
                traceback.print_exc()
        return run
    return wrap


def expect(cond, text):
    if not cond:
        raise AssertionError(text)


def sym(shape, dtype):
    """A symmetric tensor of zeros, as torch sees it."""
    return torch.from_dlpack(gshmem.zeros(shape, dtype))


def finish():
    """The verdict line of this PE, then its exit status: 1 when a check failed."""
    failed = [name for name, ok in results if not ok]
    say(f"{'PASS' if not failed else 'FAIL'} all: {len(results) - len(failed)} of {len(results)} checks passed"
        + (f"; failed: {', '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


def init_checks(missing=None, library=""):
    """gshmem.init() and its PASS line; exits 2 with a FAIL line when the job
    has fewer than 2 PEs or `library` is not usable (`missing` says why).
    Returns (my_pe, n_pes)."""
    begin = time.perf_counter()
    gshmem.init()
    me, n = gshmem.my_pe(), gshmem.n_pes()
    say(f"PASS init from torchrun ({n} PEs, GPU {torch.cuda.current_device()} of "
        f"{torch.cuda.device_count()}, {time.perf_counter() - begin:.2f} s)")
    if n < 2:
        say("FAIL setup: these checks need 2 or more PEs (torchrun --nproc-per-node 2)")
        sys.exit(2)
    if missing is not None:
        say(f"FAIL setup: {library} is not usable here: {missing}")
        sys.exit(2)
    return me, n


def run_all(checks, me, n, timeout):
    """Each check in turn (the watchdog re-armed after each), then a barrier,
    finalize and the verdict (finish)."""
    for fn in checks:
        fn(me, n)
        faulthandler.dump_traceback_later(timeout, exit=True)
    gshmem.barrier_all()
    gshmem.finalize()
    finish()
