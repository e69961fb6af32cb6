"""gshmem's device routines from Triton beside the same kernels in CUDA C,
under torchrun with 2 PEs:

    torchrun --nproc-per-node 2 python/benchmarks/bench_triton_vs_cuda.py [--rounds 200]

Two kernels, each written twice: with gshmem.triton in Triton, and with
gshmem's native device API in CUDA C (triton_vs_cuda.cu beside this file,
compiled here with nvcc into a cubin that is loaded through the driver API
and set up with gshmemx_cumodule_init, as the Triton kernels are):
  ring   one CTA: `rounds` times, put_signal nbytes to the next PE, then wait
         for the previous PE's signal (the time per round is a ring step:
         latency for small sizes, bandwidth for large ones);
  fused  CTAS CTAs: `rounds` times, each computes its tile of alpha*x + y,
         put_signals it to the next PE and waits for its incoming tile.
The rounds run inside one kernel (no launch in the timed loop); both PEs
start each timed launch together (gshmem.barrier_all). Output on PE 0: a
Markdown table of microseconds per round, Triton and CUDA C, and their ratio.
Needs nvcc (the CUDA toolkit the library was built with) and Triton.
"""

import argparse
import ctypes
import os
import subprocess
import sys
import tempfile

import torch
import triton
import triton.language as tl

import gshmem
import gshmem.triton as gt

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


@triton.jit
def ring_loop(src, dst, sig, nbytes, rounds, base):
    nxt = (gt.my_pe() + 1) % gt.n_pes()
    for r in range(1, rounds + 1):
        gt.put_signal(dst, src, nbytes, sig, base + r, gt.SIGNAL_SET, nxt)
        gt.signal_wait_until(sig, gt.CMP_GE, base + r)


@triton.jit
def fused_loop(x, y, staging, dst, sig, alpha, rounds, base, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nxt = (gt.my_pe() + 1) % gt.n_pes()
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    for r in range(1, rounds + 1):
        tl.store(staging + offs, alpha * tl.load(x + offs) + tl.load(y + offs))
        gt.put_signal(dst + pid * BLOCK, staging + pid * BLOCK, BLOCK * 4, sig + pid, base + r, gt.SIGNAL_SET,
                      nxt)
        gt.signal_wait_until(sig + pid, gt.CMP_GE, base + r)


class CudaModule:
    """triton_vs_cuda.cu as a cubin, loaded with the driver API (ctypes)."""

    def __init__(self, workdir):
        inc = os.path.join(workdir, "include", "gshmem")
        os.makedirs(inc, exist_ok=True)
        major, minor, patch = gshmem.__version__.split(".")
        with open(os.path.join(inc, "version.h"), "w") as f:  # the one generated header
            f.write(f"#pragma once\n#define GSHMEM_VERSION_MAJOR {major}\n#define GSHMEM_VERSION_MINOR {minor}\n"
                    f"#define GSHMEM_VERSION_PATCH {patch}\n#define GSHMEM_VERSION_STRING \"{gshmem.__version__}\"\n")
        cubin = os.path.join(workdir, "triton_vs_cuda.cubin")
        major_cc, minor_cc = torch.cuda.get_device_capability()
        nvcc = os.environ.get("NVCC", "nvcc" if not os.path.exists("/usr/local/cuda/bin/nvcc")
                              else "/usr/local/cuda/bin/nvcc")
        cmd = [nvcc, "-cubin", f"-arch=sm_{major_cc}{minor_cc}", "-O3", "-std=c++17", "-DGSHMEMI_STATE_EXPORTED",
               "-I", os.path.join(REPO, "include"), "-I", os.path.join(workdir, "include"),
               os.path.join(HERE, "triton_vs_cuda.cu"), "-o", cubin]
        subprocess.run(cmd, check=True)
        self.cuda = ctypes.CDLL("libcuda.so.1")
        with open(cubin, "rb") as f:
            self.image = f.read()
        self.module = ctypes.c_void_p()
        self._check(self.cuda.cuModuleLoadData(ctypes.byref(self.module), self.image), "cuModuleLoadData")
        code = gshmem._C.cumodule_init(self.module.value)
        if code != 0:
            raise gshmem.GshmemError("gshmemx_cumodule_init", code)
        self.functions = {}
        for name in ("ring_cuda", "fused_cuda"):
            fn = ctypes.c_void_p()
            self._check(self.cuda.cuModuleGetFunction(ctypes.byref(fn), self.module, name.encode()), name)
            self.functions[name] = fn

    @staticmethod
    def _check(rc, what):
        if rc != 0:
            raise RuntimeError(f"{what} failed (CUresult {rc})")

    def launch(self, name, grid, block, *args):
        holders = [a if isinstance(a, ctypes._SimpleCData) else ctypes.c_void_p(a) for a in args]
        params = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        self._check(self.cuda.cuLaunchKernel(self.functions[name], grid, 1, 1, block, 1, 1, 0, stream, params, None),
                    f"cuLaunchKernel({name})")

    def close(self):
        gshmem._C.cumodule_finalize(self.module.value)
        self.cuda.cuModuleUnload(self.module)


def timed(launch, rounds, repeats):
    """Microseconds per round: the best of `repeats` timed launches."""
    best = float("inf")
    for _ in range(repeats):
        gshmem.barrier_all()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        launch()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) * 1000.0 / rounds)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    gshmem.init()
    me, n = gshmem.my_pe(), gshmem.n_pes()
    libs = gt.extern_libs()
    rounds, repeats = args.rounds, args.repeats
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        cuda = CudaModule(workdir)
        # Signals only grow: each launch waits for values above the last one's.
        bases = {"triton": 0, "cuda": 0}

        def next_base(kind):
            b = bases[kind]
            bases[kind] += rounds
            return b

        for nbytes in (8, 4096, 65536, 1 << 20):
            src, dst = gshmem.zeros(nbytes, "uint8"), gshmem.zeros(nbytes, "uint8")
            src_t, dst_t = torch.from_dlpack(src), torch.from_dlpack(dst)
            sig_t = torch.from_dlpack(gshmem.zeros(1, "uint64"))
            sig_c = torch.from_dlpack(gshmem.zeros(1, "uint64"))
            bases = {"triton": 0, "cuda": 0}
            ring_loop[(1,)](src_t, dst_t, sig_t, nbytes, rounds, next_base("triton"), extern_libs=libs)  # compile
            t_us = timed(lambda: ring_loop[(1,)](src_t, dst_t, sig_t, nbytes, rounds, next_base("triton"),
                                                 extern_libs=libs), rounds, repeats)
            c_us = timed(lambda: cuda.launch("ring_cuda", 1, 128, src_t.data_ptr(), dst_t.data_ptr(),
                                             sig_c.data_ptr(), ctypes.c_ulonglong(nbytes), ctypes.c_int(rounds),
                                             ctypes.c_ulonglong(next_base("cuda"))), rounds, repeats)
            rows.append(("ring, 1 CTA", f"{nbytes} B", t_us, c_us))
            gshmem.barrier_all()

        alpha = 0.5
        for ctas, tile in ((8, 1024), (32, 4096)):
            count = ctas * tile
            x, y = torch.from_dlpack(gshmem.zeros(count, "float32")), torch.from_dlpack(gshmem.zeros(count, "float32"))
            staging = torch.from_dlpack(gshmem.zeros(count, "float32"))
            dst = torch.from_dlpack(gshmem.zeros(count, "float32"))
            sig_t = torch.from_dlpack(gshmem.zeros(ctas, "uint64"))
            sig_c = torch.from_dlpack(gshmem.zeros(ctas, "uint64"))
            x.copy_(torch.arange(count, device="cuda", dtype=torch.float32) + me)
            y.fill_(float(me))
            bases = {"triton": 0, "cuda": 0}
            fused_loop[(ctas,)](x, y, staging, dst, sig_t, alpha, rounds, next_base("triton"), BLOCK=tile,
                                extern_libs=libs)
            t_us = timed(lambda: fused_loop[(ctas,)](x, y, staging, dst, sig_t, alpha, rounds, next_base("triton"),
                                                     BLOCK=tile, extern_libs=libs), rounds, repeats)
            c_us = timed(lambda: cuda.launch("fused_cuda", ctas, 128, x.data_ptr(), y.data_ptr(), staging.data_ptr(),
                                             dst.data_ptr(), sig_c.data_ptr(), ctypes.c_float(alpha),
                                             ctypes.c_int(tile), ctypes.c_int(rounds),
                                             ctypes.c_ulonglong(next_base("cuda"))), rounds, repeats)
            gshmem.barrier_all()
            prv = (me - 1) % n
            want = alpha * (torch.arange(count, device="cuda", dtype=torch.float32) + prv) + prv
            if not torch.allclose(dst, want):
                print(f"[PE {me}] fused {ctas}x{tile}: the data received is wrong "
                      f"(max error {(dst - want).abs().max().item()})", flush=True)
                sys.exit(1)
            rows.append((f"fused scaled add, {ctas} CTAs", f"{tile * 4} B/tile", t_us, c_us))
        cuda.close()

    if me == 0:
        print(f"# gshmem.triton vs CUDA C, {n} PEs, {torch.cuda.get_device_name()}, triton {triton.__version__}, "
              f"{rounds} rounds per launch, best of {repeats}")
        print("| kernel | size | Triton us/round | CUDA C us/round | Triton / CUDA C |")
        print("| --- | --- | --- | --- | --- |")
        for kernel, size, t_us, c_us in rows:
            print(f"| {kernel} | {size} | {t_us:.2f} | {c_us:.2f} | {t_us / c_us:.2f} |")
    gshmem.barrier_all()
    gshmem.finalize()


if __name__ == "__main__":
    main()
