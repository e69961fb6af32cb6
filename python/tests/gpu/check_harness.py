"""What the torchrun check programs share (torchrun_checks.py,
triton_checks.py): one line per check and PE, "PASS <check> (detail) [s]" or
"FAIL <check>: why" with the traceback, and the closing verdict. torchrun
puts the program's folder first on sys.path, so they import this by name.
"""

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
