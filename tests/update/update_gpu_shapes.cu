// Cooperative update forms in 1-, 2- and 3-D blocks, and 16-byte atomics
// (see update_gpu_kernels.h for what each kernel does).
#include "update_gpu_kernels.h"

#include <gshmem/update_ext.h>

#include <cuda_fp16.h>

using gshmem::memory_order;
using gshmem::thread_scope;

namespace update_gpu {
namespace {

__global__ void coop_shapes_kernel(shape_areas a, int target) {
  __shared__ unsigned long long ones[256];
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned w = linear / 32, warps = threads / 32;
  for (unsigned i = linear; i < 256; i += threads) ones[i] = 1;
  __syncthreads();
  const gshmemx_bulk_index_t unit{nullptr, 0, 1};
  // Warp forms: warp w, its own slice of the first half.
  gshmemx_putmem_warp(a.bytes + w * 4096, a.src + w * 4096, 4096, target);
  gshmemx_ulonglong_atomic_fetch_add_bulk_warp(a.adds + w * 64, 64, unit, ones, nullptr, 64, nullptr, 0, target);
  gshmemx_uint64_put_signal_warp(a.data + w * 16, reinterpret_cast<const uint64_t *>(a.src) + w * 16, 16,
                                 a.sigs + w, 1, GSHMEM_SIGNAL_ADD, target);
  // Block forms: the whole block, the second half.
  gshmemx_putmem_block(a.bytes + warps * 4096, a.src + warps * 4096, warps * 4096, target);
  for (unsigned k = 0; k < warps; ++k)  // 64 counters per warp, 256 ones at a time at most
    gshmemx_ulonglong_atomic_fetch_add_bulk_block(a.adds + (warps + k) * 64, 64, unit, ones, nullptr, 64, nullptr,
                                                  0, target);
  gshmemx_uint64_put_signal_block(a.data + warps * 16, reinterpret_cast<const uint64_t *>(a.src) + warps * 16, 16,
                                  a.sigs + warps, 1, GSHMEM_SIGNAL_ADD, target);
  if (linear == 0) gshmem_quiet();
}

__global__ void half_bulk_add_kernel(__half *counters, __half *fetched, int target) {
  __shared__ size_t index[256];
  __shared__ __half ones[256];
  index[threadIdx.x] = threadIdx.x % 64;
  ones[threadIdx.x] = __float2half(1.0f);
  __syncthreads();
  const gshmemx_bulk_index_t by_index{index, 0, 0};
  if (threadIdx.x < 32)
    for (int c = 0; c < kHalfCalls; ++c)
      gshmemx_half_atomic_fetch_add_bulk_warp(counters, 64, by_index, ones, fetched + c * 256, 256, nullptr, 0,
                                              target);
  __syncthreads();
  for (int c = kHalfCalls; c < 2 * kHalfCalls; ++c)
    gshmemx_half_atomic_fetch_add_bulk_block(counters, 64, by_index, ones, fetched + c * 256, 256, nullptr, 0,
                                             target);
}

struct alignas(16) pair16 {
  unsigned long long lo, hi;
};

__global__ void wide_writer_kernel(pair16 *cell, long iterations, int target) {
  for (long k = 1; k <= iterations; ++k) {
    const pair16 v{(unsigned long long)k, (unsigned long long)k};
    switch (k % 3) {
      case 0: gshmem::atomic_store<memory_order::release>(cell, v, target); break;
      case 1: (void)gshmem::atomic_exchange<memory_order::acq_rel>(cell, v, target); break;
      default: {
        pair16 expected{(unsigned long long)(k - 1), (unsigned long long)(k - 1)};
        (void)gshmem::atomic_compare_exchange<memory_order::relaxed>(cell, expected, v, target);
      }
    }
  }
}

__global__ void wide_readers_kernel(pair16 *cell, long iterations, unsigned long long *torn) {
  const int me = gshmem_my_pe();
  unsigned long long bad = 0, loads = 0;
  for (;;) {
    const pair16 v = gshmem::atomic_load<memory_order::acquire>(cell, me);
    bad += v.lo != v.hi;
    ++loads;
    if (v.lo >= (unsigned long long)iterations && v.hi >= (unsigned long long)iterations) break;
  }
  atomicAdd(torn, bad);
  atomicAdd(torn + 1, loads);
}

}  // namespace

cudaError_t launch_coop_shapes(const shape_areas &a, dim3 block, int target) {
  coop_shapes_kernel<<<1, block>>>(a, target);
  return cudaGetLastError();
}

cudaError_t launch_half_bulk_add(unsigned short *counters, unsigned short *fetched, int target) {
  half_bulk_add_kernel<<<1, 256>>>(reinterpret_cast<__half *>(counters), reinterpret_cast<__half *>(fetched), target);
  return cudaGetLastError();
}

cudaError_t launch_wide_writer_on(unsigned long long *cell, long iterations, int target, cudaStream_t stream) {
  wide_writer_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<pair16 *>(cell), iterations, target);
  return cudaGetLastError();
}

cudaError_t launch_wide_readers_on(unsigned long long *cell, long iterations, int blocks, unsigned long long *torn,
                                   cudaStream_t stream) {
  wide_readers_kernel<<<blocks, 128, 0, stream>>>(reinterpret_cast<pair16 *>(cell), iterations, torn);
  return cudaGetLastError();
}

}  // namespace update_gpu
