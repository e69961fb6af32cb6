// Stress and litmus kernels of the GPU update tests: contention on one
// counter, a CAS spin lock, put_signal and fence message passing, and the
// device barrier.
#include "update_gpu_kernels.h"

#include <gshmem/update_ext.h>

using gshmem::memory_order;
using gshmem::thread_scope;

namespace update_gpu {
namespace {

// ------------------------------------------------------------ contention
__global__ void contention_kernel(unsigned long long *counter, unsigned long long *fetched_max, long per_thread) {
  unsigned long long local_max = 0;
  for (long i = 0; i < per_thread; ++i) {
    switch (i % 3) {
      case 0: local_max = max(local_max, gshmem_ulonglong_atomic_fetch_add(counter, 1ull, 0)); break;
      case 1: gshmem_ulonglong_atomic_add(counter, 1ull, 0); break;
      default:
        local_max = max(local_max, gshmem::atomic_fetch_add<memory_order::relaxed>(counter, 1ull, 0));
    }
  }
  atomicMax(fetched_max, local_max);
}

// ------------------------------------------------------------- spin lock
__global__ void lock_kernel(unsigned long long *lock, unsigned long long *count, long rounds) {
  for (long i = 0; i < rounds; ++i) {
    unsigned long long expected = 0;
    while (!gshmem::atomic_compare_exchange<memory_order::acquire>(lock, expected, 1ull, 0)) expected = 0;
    // The non-atomic critical section: a separate load and store.
    unsigned long long c = gshmem_ulonglong_g(count, 0);
    gshmem_ulonglong_p(count, c + 1, 0);
    gshmem::atomic_store<memory_order::release>(lock, 0ull, 0);
  }
}

// --------------------------------------------------------- litmus tests
// put_signal: PE p sends rounds 1..N to PE p+1: the message (every word = the
// round) then the signal (= the round, release). The receiver, on seeing
// signal s, must find every word >= s. Block form too, 1024 words.
__global__ void put_signal_litmus(uint64_t *msg, uint64_t *sig, uint64_t *wide_msg, uint64_t *wide_sig,
                                  uint64_t *staging, unsigned long long *violations, long rounds, int target) {
  const bool sender = blockIdx.x < 2;
  const bool wide = (blockIdx.x & 1) != 0;
  __shared__ uint64_t seen;
  __shared__ unsigned long long bad;
  if (threadIdx.x == 0) bad = 0;
  __syncthreads();
  const size_t words = wide ? 1024 : kMsg;
  uint64_t *my_staging = staging + (wide ? kMsg : 0);
  for (long r = 1; r <= rounds; ++r) {
    if (sender) {
      for (size_t k = threadIdx.x; k < words; k += blockDim.x) my_staging[k] = (uint64_t)r;
      __syncthreads();
      if (wide) gshmemx_uint64_put_signal_block(wide_msg, my_staging, words, wide_sig, (uint64_t)r, GSHMEM_SIGNAL_SET, target);
      else if (threadIdx.x == 0) gshmem_uint64_put_signal(msg, my_staging, words, sig, (uint64_t)r, GSHMEM_SIGNAL_SET, target);
      __syncthreads();
    } else {
      if (threadIdx.x == 0) {
        uint64_t s;
        while ((s = gshmem_signal_fetch(wide ? wide_sig : sig)) < (uint64_t)r) {}
        seen = s;
        r = (long)s;  // skip rounds overtaken
      }
      __syncthreads();
      const uint64_t s = seen;
      r = (long)s;
      uint64_t *m = wide ? wide_msg : msg;
      for (size_t k = threadIdx.x; k < words; k += blockDim.x)
        if (gshmem::detail::atomic_load<memory_order::relaxed, thread_scope::system>(m + k) < s) atomicAdd(&bad, 1ull);
      __syncthreads();
    }
  }
  if (threadIdx.x == 0) atomicAdd(violations, bad);
}

// fence: PE p writes a (put) then, after gshmem_fence, b (p) to PE p+1, both
// = the round. The receiver reads b (acquire) then a: a >= b always.
__global__ void fence_litmus(uint64_t *a, uint64_t *b, uint64_t *staging, unsigned long long *violations,
                             long rounds, int target) {
  if (blockIdx.x == 0) {
    for (long r = 1; r <= rounds; ++r) {
      staging[0] = staging[1] = (uint64_t)r;
      gshmem_uint64_put(a, staging, 2, target);
      gshmem_fence();
      gshmem_uint64_p(b, (uint64_t)r, target);
    }
  } else {
    unsigned long long bad = 0;
    uint64_t last = 0;
    while (last < (uint64_t)rounds) {
      uint64_t vb = gshmem::detail::atomic_load<memory_order::acquire, thread_scope::system>(b);
      uint64_t va0 = gshmem::detail::atomic_load<memory_order::relaxed, thread_scope::system>(a);
      uint64_t va1 = gshmem::detail::atomic_load<memory_order::relaxed, thread_scope::system>(a + 1);
      if (va0 < vb || va1 < vb) ++bad;
      last = vb;
    }
    atomicAdd(violations, bad);
  }
}

// ------------------------------------------------------- barrier stress
// Each PE bumps its own counter, passes a device barrier (sync_all on odd
// rounds), then reads every peer's counter: it must be at least this round
// (no PE left early) and at most one ahead (no PE ran past a barrier).
__global__ void barrier_stress(unsigned long long *counter, unsigned long long *violations, long rounds) {
  const int n = gshmem_n_pes();
  unsigned long long bad = 0;
  for (long r = 1; r <= rounds; ++r) {
    if (threadIdx.x == 0)
      gshmem::detail::atomic_store<memory_order::relaxed, thread_scope::system>(counter, (unsigned long long)r);
    if (r & 1) gshmem_sync_all();
    else gshmem_barrier_all();
    for (int pe = threadIdx.x; pe < n; pe += blockDim.x) {
      unsigned long long c = gshmem_ulonglong_g(counter, pe);
      if (c < (unsigned long long)r || c > (unsigned long long)r + 1) ++bad;
    }
  }
  atomicAdd(violations, bad);
}

}  // namespace

cudaError_t launch_contention(unsigned long long *counter, unsigned long long *fetched_max, int blocks,
                              int threads, long per_thread) {
  contention_kernel<<<blocks, threads>>>(counter, fetched_max, per_thread);
  return cudaGetLastError();
}
cudaError_t launch_lock(unsigned long long *lock, unsigned long long *count, int blocks, long rounds) {
  lock_kernel<<<blocks, 1>>>(lock, count, rounds);
  return cudaGetLastError();
}
cudaError_t launch_put_signal_litmus(uint64_t *msg, uint64_t *sig, uint64_t *wide_msg, uint64_t *wide_sig,
                                     uint64_t *staging, unsigned long long *violations, long rounds, int target) {
  put_signal_litmus<<<4, 256>>>(msg, sig, wide_msg, wide_sig, staging, violations, rounds, target);
  return cudaGetLastError();
}
cudaError_t launch_fence_litmus(uint64_t *a, uint64_t *b, uint64_t *staging, unsigned long long *violations,
                                long rounds, int target) {
  fence_litmus<<<2, 1>>>(a, b, staging, violations, rounds, target);
  return cudaGetLastError();
}
cudaError_t launch_barrier_stress(unsigned long long *counter, unsigned long long *violations, long rounds) {
  barrier_stress<<<1, 128>>>(counter, violations, rounds);
  return cudaGetLastError();
}

}  // namespace update_gpu
