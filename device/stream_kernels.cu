// Kernels behind the on-stream routines of <gshmem/stream.h>, and their
// launchers (src/stream_internal.h).
//
// Every poll is an acquire load at system scope, so when a wait kernel ends
// the polling threads have observed every write the updater released before
// its update; later work on the stream starts after the kernel ends (stream
// order), which carries those observations to it.
//
// Every kernel here is listed in gshmemi_stream_preload_kernels: the runtime
// loads them at init, never at first launch, because a launch that has to
// load a module while a peer GPU's kernel spins can deadlock (lazy loading).
// Set to 1 once the device wait routines of <gshmem/sync.h> exist: the wait
// kernels then call gshmem::wait_until / wait_until_{all,any,some}[_vector]
// (one thread) instead of the block-wide scans below.
#ifndef GSHMEMI_STREAM_USE_SYNC_API
#define GSHMEMI_STREAM_USE_SYNC_API 0
#endif

#if GSHMEMI_STREAM_USE_SYNC_API
#include <gshmem/gshmem.h>
#endif
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/remote.h>
#include <gshmem/detail/state.h>
#include <gshmem/detail/sync_core.h>
#include <gshmem/runtime.h>
#include <gshmem/types.h>

#include <climits>
#include <cstdio>

#include "../src/stream_internal.h"
#include "kernel_loader.h"
#include "../src/log.h"

namespace gshmemi {
namespace stream {
namespace {

using gshmem::memory_order;
using gshmem::thread_scope;
namespace gd = gshmem::detail;

constexpr unsigned kSetThreads = 256;

template <class T>
__device__ __forceinline__ T poll(const T *p) {
  return gd::atomic_load<memory_order::acquire, thread_scope::system>(p);
}

// The slow path of the kernels' poll loops (like gd::watchdog): once per
// 1024 calls it ends the wait if the runtime found a peer's process gone or,
// with GSHMEM_WAIT_TIMEOUT set, if the wait has lasted longer than that.
struct TimeoutClock {
  unsigned long long limit_ns, start_ns;
  unsigned polls;
  __device__ TimeoutClock()
      : limit_ns(gshmemi_state().wait_timeout_ns), start_ns(limit_ns ? gd::now_ns() : 0), polls(0) {}
  __device__ bool expired() {
    if ((++polls & 1023u) != 0) return false;
    if (gd::peer_lost_word() != 0) return true;
    return limit_ns != 0 && gd::now_ns() - start_ns > limit_ns;
  }
};

// Prints why the wait ends (a peer is gone, or the timeout) and traps: the
// device waits' own diagnostic (gd::fail_timeout), one element.
template <class T>
__device__ void timeout_trap(const char *routine, const T *addr, int cmp, T expected, T seen) {
  const gd::wait_context ctx{gshmemi_state().my_pe, gshmemi_state().wait_timeout_ns};
  gd::fail_timeout(ctx, routine, addr, 0, 1, cmp, expected, seen);
}

// Launched by the runtime when a peer is gone and on-stream memory-operation
// waits may be pending: nothing on the device watches those, so the PE's
// device work is ended (the trap makes every stream of the context fail).
// lost_pe < 0: a warm-up launch at init (see gshmemi_stream_init), which
// returns at once.
__global__ void end_device_work_kernel(int my_pe, int lost_pe) {
  if (lost_pe < 0) return;
  printf("gshmem: PE %d: PE %d is gone (its process ended); ending this PE's device work so that on-stream "
         "waits fail instead of waiting forever\n",
         my_pe, lost_pe);
  __trap();
}

template <class T>
__global__ void wait_until_kernel(T *ivar, int cmp, T value) {
#if GSHMEMI_STREAM_USE_SYNC_API
  gshmem::wait_until(ivar, cmp, value);
#else
  // The common case on a latency path: the condition already holds, or holds
  // after a few polls. The clock is read only once the first poll failed, and
  // the kernel returns straight after the successful acquire poll (the
  // acquire orders everything after it; no trailing fence is needed, and the
  // kernel's end carries the observation to later stream work).
  T seen = poll(ivar);
  if (gd::compare(cmp, seen, value)) return;
  TimeoutClock clock;
  for (;;) {
    seen = poll(ivar);
    if (gd::compare(cmp, seen, value)) return;
    if (clock.expired()) timeout_trap("wait_until_on_stream", ivar, cmp, value, seen);
  }
#endif
}

// _all / _any / _some, scalar or vector (values != NULL), one block.
// Semantics as the device routines: status NULL includes all, nonzero
// excludes; an empty set returns at once (any: SIZE_MAX, some: 0). `caller`
// (the stream) keys the _any rotation cursor, as a calling thread does on the
// device (detail/sync_core.h): calls on one stream rotate through the array
// whatever other arrays and streams do. GSHMEM_WAIT_TIMEOUT bounds the whole
// call, not each element.
template <class T>
__global__ void __launch_bounds__(kSetThreads)
    wait_set_kernel(SetKind kind, T *ivars, size_t nelems, const int *status, int cmp, T value,
                    const T *values, size_t *indices, size_t *out, unsigned long long caller) {
#if GSHMEMI_STREAM_USE_SYNC_API
  if (threadIdx.x != 0) return;
  switch (kind) {
    case SetKind::all:
      values ? gshmem::wait_until_all_vector(ivars, nelems, status, cmp, values)
             : gshmem::wait_until_all(ivars, nelems, status, cmp, value);
      return;
    case SetKind::any:
      *out = values ? gshmem::wait_until_any_vector(ivars, nelems, status, cmp, values)
                    : gshmem::wait_until_any(ivars, nelems, status, cmp, value);
      return;
    case SetKind::some:
      *out = values ? gshmem::wait_until_some_vector(ivars, nelems, indices, status, cmp, values)
                    : gshmem::wait_until_some(ivars, nelems, indices, status, cmp, value);
      return;
  }
#else
  __shared__ unsigned long long first_found;  // any: smallest rotated position found this pass
  __shared__ unsigned long long found_count;  // some: elements found this pass
  __shared__ size_t start;
  const unsigned tid = threadIdx.x;

  int has_active = 0;
  for (size_t i = tid; i < nelems && !has_active; i += blockDim.x) has_active = !status || status[i] == 0;
  if (!__syncthreads_or(has_active)) {
    if (tid == 0 && kind == SetKind::any) *out = SIZE_MAX;
    if (tid == 0 && kind == SetKind::some) *out = 0;
    return;
  }

  if (kind == SetKind::all) {
    // Each element waited on until seen satisfied once (OpenSHMEM's reading).
    // One deadline for the whole call.
    TimeoutClock clock;
    for (size_t i = tid; i < nelems; i += blockDim.x) {
      if (status && status[i]) continue;
      const T v = values ? values[i] : value;
      T seen;
      while (!gd::compare(cmp, seen = poll(ivars + i), v))
        if (clock.expired()) timeout_trap("wait_until_all_on_stream", ivars + i, cmp, v, seen);
    }
    return;
  }

  const gd::any_cursor cursor(ivars, caller);
  if (tid == 0) start = kind == SetKind::any ? cursor.load(nelems) : 0;
  TimeoutClock clock;
  for (;;) {
    if (tid == 0) { first_found = ULLONG_MAX; found_count = 0; }
    __syncthreads();
    for (size_t k = tid; k < nelems; k += blockDim.x) {
      size_t i = start + k;
      if (i >= nelems) i -= nelems;
      if (status && status[i]) continue;
      const T v = values ? values[i] : value;
      if (!gd::compare(cmp, poll(ivars + i), v)) continue;
      if (kind == SetKind::any) {
        atomicMin(&first_found, (unsigned long long)k);
        break;
      }
      indices[atomicAdd(&found_count, 1ull)] = i;  // each element tested once per pass: unique
    }
    __syncthreads();
    const bool done = kind == SetKind::any ? first_found != ULLONG_MAX : found_count != 0;
    if (done) {
      if (tid == 0) {
        if (kind == SetKind::any) {
          size_t i = start + size_t(first_found);
          if (i >= nelems) i -= nelems;
          *out = i;
          cursor.store(i + 1);
        } else {
          *out = size_t(found_count);
        }
      }
      return;
    }
    if (tid == 0 && clock.expired())
      timeout_trap(kind == SetKind::any ? "wait_until_any_on_stream" : "wait_until_some_on_stream", ivars, cmp,
                   values ? values[0] : value, poll(ivars));
    __syncthreads();  // everyone read first_found/found_count before thread 0 resets them
  }
#endif
}

__global__ void signal_kernel(std::uint64_t *target, std::uint64_t value, int sig_op) {
  if (sig_op == GSHMEM_SIGNAL_ADD)
    gd::atomic_fetch_add<memory_order::release, thread_scope::system>(target, value);
  else
    gd::atomic_store<memory_order::release, thread_scope::system>(target, value);
}

// With remote peers, also waits until the proxy carried out every request
// queued so far (the stream's earlier kernels' included).
__global__ void quiet_kernel() {
  gd::atomic_fence<memory_order::seq_cst, thread_scope::system>();
  if (gd::remote_enabled()) gd::remote_quiet("gshmemx_quiet_on_stream");
}

unsigned set_threads(size_t nelems) {
  if (nelems >= kSetThreads) return kSetThreads;
  return nelems <= 32 ? 32u : unsigned((nelems + 31) / 32 * 32);
}

}  // namespace

#define GSHMEMI_DEFINE_STREAM_LAUNCHERS(TYPENAME, TYPE)                                          \
  cudaError_t launch_wait_until_##TYPENAME(TYPE *ivar, int cmp, TYPE value, cudaStream_t stream) { \
    wait_until_kernel<TYPE><<<1, 1, 0, stream>>>(ivar, cmp, value);                               \
    return cudaGetLastError();                                                                    \
  }                                                                                               \
  cudaError_t launch_wait_set_##TYPENAME(SetKind kind, TYPE *ivars, size_t nelems,                 \
                                         const int *status, int cmp, TYPE value,                  \
                                         const TYPE *values, size_t *indices, size_t *out,        \
                                         cudaStream_t stream) {                                   \
    const unsigned threads = GSHMEMI_STREAM_USE_SYNC_API ? 1u : set_threads(nelems);              \
    wait_set_kernel<TYPE><<<1, threads, 0, stream>>>(kind, ivars, nelems, status, cmp, value,     \
                                                     values, indices, out,                        \
                                                     (unsigned long long)(uintptr_t)stream);      \
    return cudaGetLastError();                                                                    \
  }
GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_DEFINE_STREAM_LAUNCHERS)
#undef GSHMEMI_DEFINE_STREAM_LAUNCHERS

cudaError_t launch_signal(std::uint64_t *target, std::uint64_t value, int sig_op, cudaStream_t stream) {
  signal_kernel<<<1, 1, 0, stream>>>(target, value, sig_op);
  return cudaGetLastError();
}

cudaError_t launch_end_device_work(int my_pe, int lost_pe, cudaStream_t stream) {
  end_device_work_kernel<<<1, 1, 0, stream>>>(my_pe, lost_pe);
  return cudaGetLastError();
}

cudaError_t launch_quiet(cudaStream_t stream) {
  quiet_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t zero_internal_area(void *area) {
  cudaError_t err = cudaMemset(area, 0, GSHMEMI_INTERNAL_STREAM_BYTES);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  return err;
}

}  // namespace stream
}  // namespace gshmemi

GSHMEM_EXTERN_C int gshmemi_stream_preload_kernels(void) {
  using namespace gshmemi::stream;
  gshmemi::KernelLoader loader;
#define GSHMEMI_PRELOAD_STREAM_KERNELS(TYPENAME, TYPE) \
  loader.load(&wait_until_kernel<TYPE>);                \
  loader.load(&wait_set_kernel<TYPE>);
  GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_PRELOAD_STREAM_KERNELS)
#undef GSHMEMI_PRELOAD_STREAM_KERNELS
  loader.load(&signal_kernel);
  loader.load(&quiet_kernel);
  loader.load(&end_device_work_kernel);
  const cudaError_t err = loader.result();
  if (err != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "loading the on-stream kernels failed: %s", cudaGetErrorString(err));
  return GSHMEM_SUCCESS;
}
