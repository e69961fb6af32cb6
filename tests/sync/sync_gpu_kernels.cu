// Kernels of the GPU wait/test tests (see sync_gpu_kernels.h). They call
// the public C names from an ordinary .cu file compiled without -rdc. The
// updating side stores through gshmem_ptr and the ordering layer where the
// peer is P2P, and through the device API where it is remote (the suite's
// remote variant, GSHMEM_REMOTE_PEERS=all): the waits themselves are the same.
#include "sync_gpu_kernels.h"

#include <gshmem/runtime.h>
#include <gshmem/sync_ext.h>
#include <gshmem/update.h>  // the updaters reach a remote peer through the device API

namespace gd = gshmem::detail;
using gshmem::memory_order;
using gshmem::thread_scope;

namespace sync_gpu {
namespace {

// Stores v into symmetric *sym on PE pe with order O (relaxed or release),
// at system scope: through the mapped address on P2P; on a remote peer a
// 4- or 8-byte object takes the C++ interface's remote atomic store, a
// smaller one a fence (release) and a put of its bytes.
template <memory_order O, class T>
__device__ void store_to(T *sym, T v, int pe) {
  if (T *mapped = (T *)gshmem_ptr(sym, pe)) {
    gd::atomic_store<O, thread_scope::system>(mapped, v);
  } else if constexpr (sizeof(T) >= 4) {
    gshmem::atomic_store<O>(sym, v, pe);
  } else {
    if (O == memory_order::release) gshmem_fence();
    gshmem_putmem(sym, &v, sizeof(T), pe);
  }
}

// *sym += v on PE pe with release order, P2P or remote (4- and 8-byte objects).
template <class T>
__device__ void add_release_to(T *sym, T v, int pe) {
  if (T *mapped = (T *)gshmem_ptr(sym, pe))
    (void)gd::atomic_fetch_add<memory_order::release, thread_scope::system>(mapped, v);
  else
    gshmem::atomic_add<memory_order::release>(sym, v, pe);
}

// ---- message-passing litmus: payload then flag (release) -> wait -> payload
__global__ void litmus_kernel(int partner, bool consumer, uint64_t *flag, uint64_t *ack, uint64_t *payload,
                              uint64_t iterations, unsigned long long *violations) {
  unsigned long long bad = 0;
  for (uint64_t i = 1; i <= iterations; ++i) {
    if (consumer) {
      gshmem_uint64_wait_until(flag, GSHMEM_CMP_GE, i);
      for (int k = 0; k < 4; ++k)
        bad += gd::atomic_load<memory_order::relaxed, thread_scope::system>(payload + 32 * k) != i;
      store_to<memory_order::release>(ack, i, partner);
    } else {
      for (int k = 0; k < 4; ++k)
        store_to<memory_order::relaxed>(payload + 32 * k, i, partner);
      store_to<memory_order::release>(flag, i, partner);
      gshmem_uint64_wait_until(ack, GSHMEM_CMP_GE, i);
    }
  }
  *violations = bad;
}

// The updater's write of 5 (the elements start at 0): an atomic add with
// release order where asked and the type has atomics, else a release store.
template <class T>
__device__ void set_to_5(T *sym, int pe, bool use_atomics) {
  if constexpr (sizeof(T) >= 4) {
    if (use_atomics) {
      add_release_to(sym, (T)5, pe);
      return;
    }
  }
  store_to<memory_order::release>(sym, (T)5, pe);
}

// ---- one type: waiter checks single, _all, _any, _some, signal; updater stores / atomics
#define SYNC_GPU_KERNELS(TYPENAME, TYPE)                                                                   \
  __global__ void waiter_##TYPENAME(TYPE *ivars, size_t *indices, unsigned long long *result) {           \
    gshmem_##TYPENAME##_wait_until(ivars, GSHMEM_CMP_GE, (TYPE)5);                                        \
    result[0] = gshmem_##TYPENAME##_test(ivars, GSHMEM_CMP_EQ, (TYPE)5);                                  \
    gshmem_##TYPENAME##_wait_until_all(ivars, kElems, nullptr, GSHMEM_CMP_GE, (TYPE)5);                   \
    result[1] = gshmem_##TYPENAME##_test_all(ivars, kElems, nullptr, GSHMEM_CMP_GE, (TYPE)5);             \
    result[2] = gshmem_##TYPENAME##_wait_until_any(ivars, kElems, nullptr, GSHMEM_CMP_EQ, (TYPE)5);       \
    result[3] = gshmem_##TYPENAME##_wait_until_some(ivars, kElems, indices, nullptr, GSHMEM_CMP_GE, (TYPE)5); \
    gshmem_##TYPENAME##_wait(ivars + 1, (TYPE)0);                                                         \
  }                                                                                                        \
  __global__ void updater_##TYPENAME(TYPE *ivars, int target, bool use_atomics) {                          \
    for (int i = 0; i < kElems; ++i) {                                                                     \
      set_to_5(ivars + i, target, use_atomics);                                                            \
    }                                                                                                      \
  }
SYNC_GPU_TYPES(SYNC_GPU_KERNELS)

__global__ void signal_waiter(uint64_t *sig, unsigned long long *result) {
  result[0] = gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, 41);
}
__global__ void signal_updater(uint64_t *sig, int target) {
  add_release_to(sig, (uint64_t)42, target);
}

// ---- fan-in: every other PE writes its payload then its flag on PE 0
__global__ void fanin_sender(long *flags, long *payload, int me) {
  store_to<memory_order::relaxed>(payload + me, (long)(1000 + me), 0);
  store_to<memory_order::release>(flags + me, (long)me, 0);
}
__global__ void fanin_receiver(long *flags, long *payload, int n_pes, int *status, size_t *indices,
                               unsigned long long *result) {
  // status[0] = 1 excludes PE 0's own slot, which nobody writes.
  gshmem_long_wait_until_all(flags, n_pes, status, GSHMEM_CMP_GT, 0);
  unsigned long long bad = 0;
  for (int pe = 1; pe < n_pes; ++pe) bad += payload[pe] != 1000 + pe;
  result[0] = bad;
  result[1] = gshmem_long_test_some(flags, n_pes, indices, status, GSHMEM_CMP_GT, 0);
  result[2] = gshmem_long_test_any(flags, n_pes, status, GSHMEM_CMP_GT, 0);
}

// ---- cooperative forms: every thread records its result
__global__ void coop_local(long long *a, size_t n, long long *values, int *status,
                           size_t *indices_block, size_t *indices_warp, unsigned long long *per_thread) {
  unsigned t = threadIdx.x;
  unsigned long long *r = per_thread + (size_t)t * 12;
  r[0] = gshmemx_longlong_test_all_block(a, n, status, GSHMEM_CMP_GE, 0);
  r[1] = gshmemx_longlong_test_all_block(a, n, status, GSHMEM_CMP_GT, 0);
  r[2] = gshmemx_longlong_test_any_block(a, n, status, GSHMEM_CMP_EQ, 7);
  r[3] = gshmemx_longlong_test_some_block(a, n, indices_block, status, GSHMEM_CMP_EQ, 7);
  r[4] = gshmemx_longlong_wait_until_any_vector_block(a, n, status, GSHMEM_CMP_EQ, values);
  r[5] = gshmemx_longlong_test_any_block(a, n, status, GSHMEM_CMP_LT, -5);  // none
  gshmemx_longlong_wait_until_all_vector_block(a, n, status, GSHMEM_CMP_GE, values);
  if (t < 32) {  // warp 0 only: the warp forms
    r[6] = gshmemx_longlong_test_all_warp(a, n, status, GSHMEM_CMP_GE, 0);
    r[7] = gshmemx_longlong_test_any_warp(a, n, status, GSHMEM_CMP_EQ, 7);
    r[8] = gshmemx_longlong_wait_until_some_warp(a, n, indices_warp, status, GSHMEM_CMP_EQ, 7);
    r[9] = gshmemx_longlong_test_some_vector_warp(a, n, indices_warp + n, status, GSHMEM_CMP_EQ, values);
    r[10] = gshmemx_longlong_wait_until_any_warp(a, n, status, GSHMEM_CMP_EQ, 7);
    r[11] = gshmemx_longlong_test_all_vector_warp(a, n, status, GSHMEM_CMP_GE, values);
  }
}

// Block and warp waits released from another GPU.
__global__ void coop_remote_wait(unsigned long long *a, size_t n, size_t *indices, unsigned long long *per_thread) {
  gshmemx_ulonglong_wait_until_all_block(a, n, nullptr, GSHMEM_CMP_EQ, 9);
  unsigned long long any = gshmemx_ulonglong_wait_until_any_block(a + n, n, nullptr, GSHMEM_CMP_EQ, 9);
  unsigned long long some = 0;
  if (threadIdx.x < 32) some = gshmemx_ulonglong_wait_until_some_warp(a + 2 * n, n, indices, nullptr, GSHMEM_CMP_EQ, 9);
  per_thread[threadIdx.x * 2] = any;
  per_thread[threadIdx.x * 2 + 1] = some;
}
__global__ void coop_remote_set(unsigned long long *a, size_t n, int target) {
  for (size_t i = threadIdx.x; i < 3 * n; i += blockDim.x)
    store_to<memory_order::release>(a + i, 9ull, target);
}

// Block shapes with a partial last warp, several dimensions, a single
// thread and a full 1024 threads: the block reductions must hear from every
// warp, the partial one included, and hand every thread the same result.
// Two calls of one routine in a row also reuse its shared scratch at once.
__global__ void coop_shapes(long long *a, size_t n, unsigned long long *per_thread) {
  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned long long *r = per_thread + (size_t)t * 5;
  r[0] = gshmemx_longlong_test_any_block(a, n, nullptr, GSHMEM_CMP_EQ, 7);
  r[1] = gshmemx_longlong_test_any_block(a, n, nullptr, GSHMEM_CMP_EQ, 7);
  r[2] = gshmemx_longlong_test_all_block(a, n, nullptr, GSHMEM_CMP_LE, 7);
  r[3] = gshmemx_longlong_test_all_block(a, n, nullptr, GSHMEM_CMP_LT, 7);
  r[4] = gshmemx_longlong_wait_until_any_block(a, n, nullptr, GSHMEM_CMP_GT, 6);
}

// ---- block _all on small arrays (see the header)
__global__ void small_all_local(const long long *a, size_t n, const long long *values, const int *status,
                                unsigned long long *per_thread) {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned long long *r = per_thread + (size_t)t * kSmallAllResults;
  long long *x = const_cast<long long *>(a);
  r[0] = gshmemx_longlong_test_all_block(x, n, status, GSHMEM_CMP_GE, 10);
  r[1] = gshmemx_longlong_test_all_vector_block(x, n, status, GSHMEM_CMP_GE, values);
  r[2] = gshmemx_longlong_test_all_block(x, n, status, GSHMEM_CMP_LT, 3);
  gshmemx_longlong_wait_until_all_block(x, n, status, GSHMEM_CMP_LE, 10);
  r[3] = 1;
  gshmemx_longlong_wait_until_all_vector_block(x, n, status, GSHMEM_CMP_LE, values);
  r[4] = 1;
  r[5] = gshmemx_longlong_test_all_block(x, n, status, GSHMEM_CMP_GE, 10);
}

__global__ void small_all_consumer(uint64_t *flags, size_t n, const int *status, const uint64_t *payload,
                                   uint64_t *ack, int partner, uint64_t rounds, unsigned long long *violations) {
  unsigned long long bad = 0;
  for (uint64_t r = 1; r <= rounds; ++r) {
    if (r % 2) {
      gshmemx_uint64_wait_until_all_block(flags, n, status, GSHMEM_CMP_GE, r);
    } else {
      while (!gshmemx_uint64_test_all_block(flags, n, status, GSHMEM_CMP_GE, r)) {
      }
    }
    // Plain relaxed loads: only the routine's acquire orders them after the
    // producer's payload stores.
    bad += gd::atomic_load<memory_order::relaxed, thread_scope::system>(payload + threadIdx.x % kSmallAllPayload) != r;
    __syncthreads();  // every thread has read round r's payload before the producer writes the next
    if (threadIdx.x == 0) store_to<memory_order::release>(ack, r, partner);
  }
  if (bad) atomicAdd(violations, bad);
}

__global__ void small_all_producer(uint64_t *flags, size_t n, const int *status, uint64_t *payload, uint64_t *ack,
                                   int partner, uint64_t rounds) {
  for (uint64_t r = 1; r <= rounds; ++r) {
    for (int k = 0; k < kSmallAllPayload; ++k)
      store_to<memory_order::relaxed>(payload + k, r, partner);
    for (size_t i = 0; i < n; ++i)
      if (!status || status[i] == 0)
        store_to<memory_order::release>(flags + i, r, partner);
    gshmem_uint64_wait_until(ack, GSHMEM_CMP_GE, r);
  }
}

// ---- _any liveness (see the header)
__device__ void record(unsigned *seen, size_t r) { atomicOr(seen, r < 4 ? 1u << r : 1u << 31); }

__global__ void any_liveness(long *arrays, int n_arrays, int rounds, int form, unsigned *seen) {
  const unsigned t = threadIdx.x, warp = t / 32;
  for (int round = 0; round < rounds; ++round) {
    const bool waits = round % 2 == 1;
    for (int a = 0; a < n_arrays; ++a) {
      long *x = arrays + (size_t)a * kAnyPitch;
      switch (form) {
        case kAnyFormThreads:  // thread 0, then thread 32: two callers on each array
          for (unsigned caller = 0; caller < 2; ++caller) {
            if (t == caller * 32)
              record(seen + caller * n_arrays + a, waits ? gshmem_long_wait_until_any(x, 4, nullptr, GSHMEM_CMP_EQ, 1)
                                                         : gshmem_long_test_any(x, 4, nullptr, GSHMEM_CMP_EQ, 1));
            __syncthreads();
          }
          break;
        case kAnyFormWarps:
          for (unsigned caller = 0; caller < 2; ++caller) {
            if (warp == caller) {
              size_t r = waits ? gshmemx_long_wait_until_any_warp(x, 4, nullptr, GSHMEM_CMP_EQ, 1)
                               : gshmemx_long_test_any_warp(x, 4, nullptr, GSHMEM_CMP_EQ, 1);
              if (t % 32 == 0) record(seen + caller * n_arrays + a, r);
            }
            __syncthreads();
          }
          break;
        case kAnyFormBlock: {
          size_t r = waits ? gshmemx_long_wait_until_any_block(x, 4, nullptr, GSHMEM_CMP_EQ, 1)
                           : gshmemx_long_test_any_block(x, 4, nullptr, GSHMEM_CMP_EQ, 1);
          if (t == 0) record(seen + a, r);
          break;
        }
        default: {
          const long ones[4] = {1, 1, 1, 1};
          if (t == 0)
            record(seen + a, waits ? gshmem_long_wait_until_any_vector(x, 4, nullptr, GSHMEM_CMP_EQ, ones)
                                   : gshmem_long_test_any_vector(x, 4, nullptr, GSHMEM_CMP_EQ, ones));
          break;
        }
      }
    }
  }
}

// ---- one-thread scans in a 1024-thread block. The scans' registers count
// for the whole kernel: without __launch_bounds__ such a kernel may not
// launch with 1024 threads; with __launch_bounds__(1024) it must (see the
// "Registers" note in include/gshmem/sync.h).
__device__ void one_thread_scans(uint64_t *ivars, size_t n, const uint64_t *cmp_values, size_t *indices,
                                 unsigned long long *result) {
  if (threadIdx.x != 0) return;
  gshmem_uint64_wait_until_all(ivars, n, nullptr, GSHMEM_CMP_GE, 1);
  result[0] = 1;
  result[1] = (unsigned long long)gshmem_uint64_test_all(ivars, n, nullptr, GSHMEM_CMP_GE, 1);
  result[2] = gshmem_uint64_wait_until_any(ivars, n, nullptr, GSHMEM_CMP_EQ, 2);
  result[3] = gshmem_uint64_test_any(ivars, n, nullptr, GSHMEM_CMP_EQ, 2);
  result[4] = gshmem_uint64_wait_until_some(ivars, n, indices, nullptr, GSHMEM_CMP_EQ, 2);
  gshmem_uint64_wait_until_all_vector(ivars, n, nullptr, GSHMEM_CMP_GE, cmp_values);
  result[5] = 1;
  result[6] = gshmem_uint64_wait_until_any_vector(ivars, n, nullptr, GSHMEM_CMP_GT, cmp_values);
  result[7] = gshmem_uint64_test_some_vector(ivars, n, indices + n, nullptr, GSHMEM_CMP_GT, cmp_values);
}
__global__ void one_thread_scans_unbounded(uint64_t *ivars, size_t n, const uint64_t *cmp_values, size_t *indices,
                                           unsigned long long *result) {
  one_thread_scans(ivars, n, cmp_values, indices, result);
}
// The same scans by warp 0 with the warp forms: they fit 64 registers.
__global__ void warp_scans_unbounded(uint64_t *ivars, size_t n, const uint64_t *cmp_values, size_t *indices,
                                     unsigned long long *result) {
  if (threadIdx.x >= 32) return;
  const bool lane0 = threadIdx.x == 0;  // results stored at once: nothing of ours stays live across a scan
  gshmemx_uint64_wait_until_all_warp(ivars, n, nullptr, GSHMEM_CMP_GE, 1);
  if (lane0) result[0] = 1;
  const int all = gshmemx_uint64_test_all_warp(ivars, n, nullptr, GSHMEM_CMP_GE, 1);
  if (lane0) result[1] = (unsigned long long)all;
  const size_t any = gshmemx_uint64_wait_until_any_warp(ivars, n, nullptr, GSHMEM_CMP_EQ, 2);
  if (lane0) result[2] = any;
  const size_t test_any = gshmemx_uint64_test_any_warp(ivars, n, nullptr, GSHMEM_CMP_EQ, 2);
  if (lane0) result[3] = test_any;
  const size_t some = gshmemx_uint64_wait_until_some_warp(ivars, n, indices, nullptr, GSHMEM_CMP_EQ, 2);
  if (lane0) result[4] = some;
  gshmemx_uint64_wait_until_all_vector_warp(ivars, n, nullptr, GSHMEM_CMP_GE, cmp_values);
  if (lane0) result[5] = 1;
  const size_t any_vector = gshmemx_uint64_wait_until_any_vector_warp(ivars, n, nullptr, GSHMEM_CMP_GT, cmp_values);
  if (lane0) result[6] = any_vector;
  const size_t some_vector =
      gshmemx_uint64_test_some_vector_warp(ivars, n, indices + n, nullptr, GSHMEM_CMP_GT, cmp_values);
  if (lane0) result[7] = some_vector;
}
__global__ void __launch_bounds__(1024) one_thread_scans_bounded(uint64_t *ivars, size_t n, const uint64_t *cmp_values,
                                                                 size_t *indices, unsigned long long *result) {
  one_thread_scans(ivars, n, cmp_values, indices, result);
}

}  // namespace

cudaError_t launch_litmus(int partner, bool consumer, uint64_t *flag, uint64_t *ack, uint64_t *payload,
                          uint64_t iterations, unsigned long long *violations) {
  litmus_kernel<<<1, 1>>>(partner, consumer, flag, ack, payload, iterations, violations);
  return cudaGetLastError();
}

#define SYNC_GPU_LAUNCHERS(TYPENAME, TYPE)                                                    \
  cudaError_t launch_waiter_##TYPENAME(TYPE *ivars, size_t *indices, unsigned long long *result) { \
    waiter_##TYPENAME<<<1, 1>>>(ivars, indices, result);                                      \
    return cudaGetLastError();                                                                \
  }                                                                                           \
  cudaError_t launch_updater_##TYPENAME(TYPE *ivars, int target, bool use_atomics) {          \
    updater_##TYPENAME<<<1, 1>>>(ivars, target, use_atomics);                                 \
    return cudaGetLastError();                                                                \
  }
SYNC_GPU_TYPES(SYNC_GPU_LAUNCHERS)
#undef SYNC_GPU_LAUNCHERS

cudaError_t launch_signal_waiter(uint64_t *sig, unsigned long long *result) {
  signal_waiter<<<1, 1>>>(sig, result);
  return cudaGetLastError();
}
cudaError_t launch_signal_updater(uint64_t *sig, int target) {
  signal_updater<<<1, 1>>>(sig, target);
  return cudaGetLastError();
}
cudaError_t launch_fanin_sender(long *flags, long *payload, int me) {
  fanin_sender<<<1, 1>>>(flags, payload, me);
  return cudaGetLastError();
}
cudaError_t launch_fanin_receiver(long *flags, long *payload, int n_pes, int *status, size_t *indices,
                                  unsigned long long *result) {
  fanin_receiver<<<1, 1>>>(flags, payload, n_pes, status, indices, result);
  return cudaGetLastError();
}
cudaError_t launch_coop_local(long long *a, size_t n, long long *values, int *status, size_t *indices_block,
                              size_t *indices_warp, unsigned long long *per_thread, int threads) {
  coop_local<<<1, threads>>>(a, n, values, status, indices_block, indices_warp, per_thread);
  return cudaGetLastError();
}
cudaError_t launch_coop_remote_wait(unsigned long long *a, size_t n, size_t *indices,
                                    unsigned long long *per_thread) {
  coop_remote_wait<<<1, 256>>>(a, n, indices, per_thread);
  return cudaGetLastError();
}
cudaError_t launch_coop_remote_set(unsigned long long *a, size_t n, int target) {
  coop_remote_set<<<1, 128>>>(a, n, target);
  return cudaGetLastError();
}
cudaError_t launch_coop_shapes(long long *a, size_t n, unsigned long long *per_thread, dim3 shape) {
  coop_shapes<<<1, shape>>>(a, n, per_thread);
  return cudaGetLastError();
}

cudaError_t launch_small_all_local(const long long *a, size_t n, const long long *values, const int *status,
                                   unsigned long long *per_thread, dim3 shape) {
  small_all_local<<<1, shape>>>(a, n, values, status, per_thread);
  return cudaGetLastError();
}
cudaError_t launch_small_all_consumer(uint64_t *flags, size_t n, const int *status, const uint64_t *payload,
                                      uint64_t *ack, int partner, uint64_t rounds, int threads,
                                      unsigned long long *violations) {
  small_all_consumer<<<1, threads>>>(flags, n, status, payload, ack, partner, rounds, violations);
  return cudaGetLastError();
}
cudaError_t launch_small_all_producer(uint64_t *flags, size_t n, const int *status, uint64_t *payload,
                                      uint64_t *ack, int partner, uint64_t rounds) {
  small_all_producer<<<1, 1>>>(flags, n, status, payload, ack, partner, rounds);
  return cudaGetLastError();
}

cudaError_t launch_any_liveness(long *arrays, int n_arrays, int rounds, int form, unsigned *seen) {
  any_liveness<<<1, 64>>>(arrays, n_arrays, rounds, form, seen);
  return cudaGetLastError();
}
using scans_kernel = void (*)(uint64_t *, size_t, const uint64_t *, size_t *, unsigned long long *);
scans_kernel scans_kernel_of(ScansIn1024 variant) {
  return variant == kOneThreadBounded ? one_thread_scans_bounded
         : variant == kWarpForms      ? warp_scans_unbounded
                                      : one_thread_scans_unbounded;
}
cudaError_t launch_scans_1024(ScansIn1024 variant, uint64_t *ivars, size_t n, const uint64_t *cmp_values,
                              size_t *indices, unsigned long long *result) {
  scans_kernel_of(variant)<<<1, 1024>>>(ivars, n, cmp_values, indices, result);
  return cudaGetLastError();
}
cudaError_t scans_1024_registers(ScansIn1024 variant, int *registers) {
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, scans_kernel_of(variant));
  *registers = attr.numRegs;
  return e;
}

// ---- the wide one-thread _any scan (see the header)
__global__ void wide_any_kernel(uint64_t *ivars, size_t n, unsigned long long *result) {
  if (threadIdx.x != 0) return;
  for (int k = 0; k < 4; ++k) result[k] = gshmem::wait_until_any<uint64_t, 32>(ivars, n, nullptr, GSHMEM_CMP_EQ, 2);
  result[4] = gshmem::test_any<uint64_t, 32>(ivars, n, nullptr, GSHMEM_CMP_EQ, 2);
  result[5] = gshmem::test_any<uint64_t, 32>(ivars, n, nullptr, GSHMEM_CMP_EQ, 9);
}

cudaError_t launch_wide_any(uint64_t *ivars, size_t n, int threads, unsigned long long *result) {
  wide_any_kernel<<<1, threads>>>(ivars, n, result);
  return cudaGetLastError();
}

cudaError_t wide_any_registers(int *registers) {
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, wide_any_kernel);
  *registers = attr.numRegs;
  return e;
}

}  // namespace sync_gpu
