// The NVSHMEM names (gshmem::nvshmem) in the call shapes of NVIDIA's
// device perftests (pt-to-pt: get/put bandwidth and latency, g/p, the
// ping-pongs, the atomics), one kernel each, no __launch_bounds__ (see
// launch_cases.h). Those programs launch such kernels with up to 1024
// threads per block; one of them (shmem_get_bw -t 1024) failed to launch
// when a routine inlined there took more than 64 registers.
#include <nvshmem.h>
#include <nvshmemx.h>

#include "launch_cases.h"

using namespace launch_test;

// ---- get / put bandwidth: one block's share of the array, then quiet
LAUNCH_KERNEL(compat_get_bw_block, check_copy) {
  const size_t share = kElems / gridDim.x;
  nvshmemx_double_get_nbi_block(a->dst + blockIdx.x * share, a->src + blockIdx.x * share, share, pe);
  __syncthreads();
  if (tid() == 0) nvshmem_quiet();
}
LAUNCH_KERNEL(compat_put_bw_block, check_copy) {
  const size_t share = kElems / gridDim.x;
  nvshmemx_double_put_nbi_block(a->dst + blockIdx.x * share, a->src + blockIdx.x * share, share, pe);
  __syncthreads();
  if (tid() == 0) nvshmem_quiet();
}
LAUNCH_KERNEL(compat_put_bw_warp, check_copy) {
  nvshmemx_double_put_nbi_warp(a->dst + warp() * kPerWarp, a->src + warp() * kPerWarp, kPerWarp, pe);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_put_bw_thread, check_copy) {
  nvshmem_double_put_nbi(a->dst + tid() * kPerThread, a->src + tid() * kPerThread, kPerThread, pe);
  nvshmem_quiet();
}

// ---- get / put latency
LAUNCH_KERNEL(compat_get_latency_thread, check_icopy) {
  nvshmem_int_get_nbi(a->idst + tid() * kPerThread, a->isrc + tid() * kPerThread, kPerThread, pe);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_get_latency_warp, check_icopy) {
  nvshmemx_int_get_nbi_warp(a->idst + warp() * kPerWarp, a->isrc + warp() * kPerWarp, kPerWarp, pe);
  __syncthreads();
  if (tid() == 0) nvshmem_quiet();
  __syncthreads();
}
LAUNCH_KERNEL(compat_get_latency_block, check_icopy) {
  nvshmemx_int_get_nbi_block(a->idst, a->isrc, kElems, pe);
  __syncthreads();
  if (tid() == 0) nvshmem_quiet();
  __syncthreads();
}
LAUNCH_KERNEL(compat_put_latency_warp, check_icopy) {
  nvshmemx_int_put_warp(a->idst + warp() * kPerWarp, a->isrc + warp() * kPerWarp, kPerWarp, pe);
  __syncthreads();
  if (tid() == 0) nvshmem_quiet();
  __syncthreads();
}
LAUNCH_KERNEL(compat_put_latency_block, check_icopy) {
  nvshmemx_int_put_block(a->idst, a->isrc, kElems, pe);
  __syncthreads();
  if (tid() == 0) nvshmem_quiet();
  __syncthreads();
}

// ---- g / p: a strided loop over the array, one element per thread and pass
LAUNCH_KERNEL(compat_g_latency_int, check_icopy) {
  for (size_t j = tid(); j < kElems; j += blockDim.x) a->idst[j] = nvshmem_int_g(a->isrc + j, pe);
  __syncthreads();
}
LAUNCH_KERNEL(compat_g_bw_uint8, check_bcopy) {
  for (size_t j = tid(); j < kThreads; j += blockDim.x) a->bdst[j] = nvshmem_uint8_g(a->bsrc + j, pe);
}
LAUNCH_KERNEL(compat_g_bw_uint16, check_icopy) {
  uint16_t *dst = reinterpret_cast<uint16_t *>(a->idst);
  const uint16_t *src = reinterpret_cast<const uint16_t *>(a->isrc);
  for (size_t j = tid(); j < 2 * kElems; j += blockDim.x) dst[j] = nvshmem_uint16_g(src + j, pe);
}
LAUNCH_KERNEL(compat_g_bw_uint32, check_icopy) {
  uint32_t *dst = reinterpret_cast<uint32_t *>(a->idst);
  const uint32_t *src = reinterpret_cast<const uint32_t *>(a->isrc);
  for (size_t j = tid(); j < kElems; j += blockDim.x) dst[j] = nvshmem_uint32_g(src + j, pe);
}
LAUNCH_KERNEL(compat_g_bw_double, check_copy) {
  for (size_t j = tid(); j < kElems; j += blockDim.x) a->dst[j] = nvshmem_double_g(a->src + j, pe);
}
LAUNCH_KERNEL(compat_p_latency_int, check_icopy) {
  for (size_t j = tid(); j < kElems; j += blockDim.x) nvshmem_int_p(a->idst + j, a->isrc[j], pe);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_p_bw_uint8, check_bcopy) {
  for (size_t j = tid(); j < kThreads; j += blockDim.x) nvshmem_uint8_p(a->bdst + j, a->bsrc[j], pe);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_p_bw_uint16, check_icopy) {
  uint16_t *dst = reinterpret_cast<uint16_t *>(a->idst);
  const uint16_t *src = reinterpret_cast<const uint16_t *>(a->isrc);
  for (size_t j = tid(); j < 2 * kElems; j += blockDim.x) nvshmem_uint16_p(dst + j, src[j], pe);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_p_bw_uint32, check_icopy) {
  uint32_t *dst = reinterpret_cast<uint32_t *>(a->idst);
  const uint32_t *src = reinterpret_cast<const uint32_t *>(a->isrc);
  for (size_t j = tid(); j < kElems; j += blockDim.x) nvshmem_uint32_p(dst + j, src[j], pe);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_p_bw_double, check_copy) {
  for (size_t j = tid(); j < kElems; j += blockDim.x) nvshmem_double_p(a->dst + j, a->src[j], pe);
  nvshmem_quiet();
}

// ---- ping-pongs (one PE: the wait is for what this PE itself sent)
LAUNCH_KERNEL(compat_p_ping_pong, check_icopy_sig1) {
  if (tid() == 0) nvshmem_uint64_wait_until(&a->sig, NVSHMEM_CMP_EQ, 0);
  __syncthreads();
  for (size_t j = tid(); j < kElems; j += blockDim.x) nvshmem_int_p(a->idst + j, a->isrc[j], pe);
  nvshmem_fence();
  __syncthreads();
  if (tid() == 0) nvshmemx_signal_op(&a->sig, 1, NVSHMEM_SIGNAL_SET, pe);
  if (tid() == 0) nvshmem_quiet();
}
LAUNCH_KERNEL(compat_put_atomic_ping_pong, check_icopy_sig_all) {
  nvshmem_int_put_nbi(a->idst + tid() * kPerThread, a->isrc + tid() * kPerThread, kPerThread, pe);
  nvshmem_fence();
  nvshmem_uint64_atomic_inc(&a->sig, pe);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_put_signal_ping_pong_thread, check_icopy_sig1) {
  nvshmem_int_put_signal_nbi(a->idst + tid() * kPerThread, a->isrc + tid() * kPerThread, kPerThread, &a->sig, 1,
                             NVSHMEM_SIGNAL_SET, pe);
  if (tid() == 0) nvshmem_uint64_wait_until(&a->sig, NVSHMEM_CMP_EQ, 1);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_put_signal_ping_pong_warp, check_icopy_sig1) {
  nvshmemx_int_put_signal_nbi_warp(a->idst + warp() * kPerWarp, a->isrc + warp() * kPerWarp, kPerWarp, &a->sig, 1,
                                   NVSHMEM_SIGNAL_SET, pe);
  if (tid() == 0) nvshmem_uint64_wait_until(&a->sig, NVSHMEM_CMP_EQ, 1);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_put_signal_ping_pong_block, check_icopy_sig1) {
  nvshmemx_int_put_signal_nbi_block(a->idst, a->isrc, kElems, &a->sig, 1, NVSHMEM_SIGNAL_SET, pe);
  if (tid() == 0) nvshmem_uint64_wait_until(&a->sig, NVSHMEM_CMP_EQ, 1);
  nvshmem_quiet();
}
LAUNCH_KERNEL(compat_signal_ping_pong, check_sig<1>) {
  if (tid() == 0) {
    nvshmemx_signal_op(&a->sig, 1, NVSHMEM_SIGNAL_SET, pe);
    nvshmem_uint64_wait_until(&a->sig, NVSHMEM_CMP_EQ, 1);
  }
  nvshmem_quiet();
}

// ---- atomics (bandwidth shape: one element per thread)
namespace {
__device__ __forceinline__ uint64_t *slot(arena *a) { return reinterpret_cast<uint64_t *>(&a->slot[tid()]); }
}  // namespace
LAUNCH_KERNEL(compat_atomic_inc, check_amo_inc) { nvshmem_uint64_atomic_inc(slot(a), pe); }
LAUNCH_KERNEL(compat_atomic_fetch_inc, check_amo_fetch_inc) {
  a->result[tid()] = nvshmem_uint64_atomic_fetch_inc(slot(a), pe);
}
LAUNCH_KERNEL(compat_atomic_add, check_amo_add) { nvshmem_uint64_atomic_add(slot(a), 3, pe); }
LAUNCH_KERNEL(compat_atomic_fetch_add, check_amo_fetch_add) {
  a->result[tid()] = nvshmem_uint64_atomic_fetch_add(slot(a), 3, pe);
}
LAUNCH_KERNEL(compat_atomic_and, check_amo_and) { nvshmem_uint64_atomic_and(slot(a), ~1ull, pe); }
LAUNCH_KERNEL(compat_atomic_fetch_and, check_amo_fetch_and) {
  a->result[tid()] = nvshmem_uint64_atomic_fetch_and(slot(a), ~1ull, pe);
}
LAUNCH_KERNEL(compat_atomic_or, check_amo_or) { nvshmem_uint64_atomic_or(slot(a), 0x100, pe); }
LAUNCH_KERNEL(compat_atomic_fetch_or, check_amo_fetch_or) {
  a->result[tid()] = nvshmem_uint64_atomic_fetch_or(slot(a), 0x100, pe);
}
LAUNCH_KERNEL(compat_atomic_xor, check_amo_xor) { nvshmem_uint64_atomic_xor(slot(a), 0xff, pe); }
LAUNCH_KERNEL(compat_atomic_fetch_xor, check_amo_fetch_xor) {
  a->result[tid()] = nvshmem_uint64_atomic_fetch_xor(slot(a), 0xff, pe);
}
LAUNCH_KERNEL(compat_atomic_swap, check_amo_swap) {
  a->result[tid()] = nvshmem_uint64_atomic_swap(slot(a), tid() + 1, pe);
}
LAUNCH_KERNEL(compat_atomic_set, check_amo_set) { nvshmem_uint64_atomic_set(slot(a), 7ull * tid(), pe); }
LAUNCH_KERNEL(compat_atomic_compare_swap, check_amo_compare_swap) {
  a->result[tid()] = nvshmem_uint64_atomic_compare_swap(slot(a), tid(), tid() + 5000, pe);
}
LAUNCH_KERNEL(compat_atomic_fetch, check_amo_fetch) { a->result[tid()] = nvshmem_uint64_atomic_fetch(slot(a), pe); }

// ---- waits and barriers
LAUNCH_KERNEL(compat_wait_until_any, check_result<kHit>) {
  a->result[tid()] = nvshmem_longlong_wait_until_any(a->ivars, kWait, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(compat_test_all_vector, check_result<1>) {
  a->result[tid()] =
      (unsigned long long)nvshmem_longlong_test_all_vector(a->ivars, kWait, a->status, a->cmp_ge, a->cmp_values);
}
LAUNCH_KERNEL(compat_signal_wait_until, check_result<0>) {
  a->result[tid()] = nvshmem_signal_wait_until(&a->sig, a->cmp_ge, 0);
}
LAUNCH_KERNEL(compat_barrier_all_thread, (check_result<1, 1>)) {
  if (tid() == 0) {
    nvshmem_barrier_all();
    a->result[0] = 1;
  }
}
LAUNCH_KERNEL(compat_barrier_all_block, check_result<1>) {
  nvshmemx_barrier_all_block();
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(compat_sync_all_warp, (check_result<1, 32>)) {
  if (warp() == 0) {
    nvshmemx_sync_all_warp();
    a->result[tid()] = 1;
  }
}
