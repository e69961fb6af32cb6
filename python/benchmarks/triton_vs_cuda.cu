// The CUDA C side of bench_triton_vs_cuda.py: the same two kernels as its
// Triton ones, written with gshmem's native device API. The benchmark
// compiles this file with nvcc into a cubin (GSHMEMI_STATE_EXPORTED: the
// module's state under the name gshmemx_cumodule_init finds), loads it with
// the driver API and sets its state up with gshmemx_cumodule_init, as the
// Triton kernels are.
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

// Ring: `rounds` times, the block puts nbytes to the next PE with a signal
// (base + r) and waits for the previous PE's.
extern "C" __global__ void ring_cuda(const char *src, char *dst, uint64_t *sig, unsigned long long nbytes,
                                     int rounds, unsigned long long base) {
  const int me = gshmem_my_pe();
  const int next = (me + 1) % gshmem_n_pes();
  for (int r = 1; r <= rounds; ++r) {
    __syncthreads();  // as the Triton put_signal
    gshmemx_putmem_signal_block(dst, src, nbytes, sig, base + r, GSHMEM_SIGNAL_SET, next);
    gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, base + r);
  }
}

// Fused: each block computes its tile of alpha * x + y into staging, puts it
// to the next PE's dst with its own signal, and waits for its incoming tile.
extern "C" __global__ void fused_cuda(const float *x, const float *y, float *staging, float *dst, uint64_t *sig,
                                      float alpha, int tile, int rounds, unsigned long long base) {
  const int me = gshmem_my_pe();
  const int next = (me + 1) % gshmem_n_pes();
  const size_t off = (size_t)blockIdx.x * tile;
  for (int r = 1; r <= rounds; ++r) {
    for (int i = threadIdx.x; i < tile; i += blockDim.x) staging[off + i] = alpha * x[off + i] + y[off + i];
    __syncthreads();
    gshmemx_putmem_signal_block(dst + off, staging + off, tile * sizeof(float), sig + blockIdx.x, base + r,
                                GSHMEM_SIGNAL_SET, next);
    gshmem_signal_wait_until(sig + blockIdx.x, GSHMEM_CMP_GE, base + r);
  }
}
