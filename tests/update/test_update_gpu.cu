// GPU tests of the remote updates, run with 2 and 4 PEs (one GPU each):
// every RMA and atomic routine for every type of the type table reaches the
// right PE with the right value; contention on one counter; a CAS spin lock;
// put_signal and fence litmus tests; device barrier stress. Iteration counts:
// update_test_config.h.
#include "catch.hpp"
#include "test_support.h"
#include "update_test_config.h"

#include <gshmem/runtime.h>
#include <gshmem/update_ext.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace update_test;
using gshmem::memory_order;
using gshmem::thread_scope;

namespace {

// A small value that fits every type (char included) and tells the writer
// PE and the element apart.
template <class T>
__host__ __device__ T pattern(int pe, int k) { return (T)(pe * 20 + (k % 19) + 1); }

// Symmetric layout of the per-type RMA test, in elements.
constexpr int kP = 0, kPut = 1, kPutNbi = 9, kPutmem = 17, kPutWarp = 25, kPutBlock = 125, kPutSig = 1125,
              kPutSigBlock = 1133, kRmaSlots = 2200, kMsg = 8, kWarpElems = 100, kBlockElems = 1000;
constexpr int kSigs = 4;

void cuda_ok(cudaError_t e, const char *what) {
  INFO(what << ": " << cudaGetErrorString(e));
  CHECK(e == cudaSuccess);
}

template <class T>
std::vector<T> to_host(const T *dev, size_t n) {
  std::vector<T> h(n);
  cuda_ok(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  return h;
}

// ------------------------------------------------------------ RMA x type
// One kernel per type from the type table. Block of 256 threads: thread 0
// does the single-thread forms, warp 0 the warp forms, all the block forms.
#define RMA_KERNEL(NAME, TYPE)                                                                       \
  __global__ void rma_kernel_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target) { \
    if (threadIdx.x == 0) {                                                                          \
      gshmem_##NAME##_p(dst + kP, src[0], target);                                                   \
      gshmem_##NAME##_put(dst + kPut, src, kMsg, target);                                            \
      gshmem_##NAME##_put_nbi(dst + kPutNbi, src + 1, kMsg, target);                                 \
      gshmem_putmem(dst + kPutmem, src + 2, kMsg * sizeof(TYPE), target);                            \
      gshmem_##NAME##_put_signal(dst + kPutSig, src + 3, kMsg, sig + 0, 7, GSHMEM_SIGNAL_SET, target); \
      gshmem_##NAME##_put_signal_nbi(dst + kPutSig, src + 3, kMsg, sig + 1, 5, GSHMEM_SIGNAL_ADD, target); \
      got[0] = gshmem_##NAME##_g(src, target);                                                       \
      gshmem_##NAME##_get(got + 1, src, kMsg, target);                                               \
      gshmem_##NAME##_get_nbi(got + 1 + kMsg, src + 1, kMsg, target);                                \
      gshmem_getmem(got + 1 + 2 * kMsg, src + 2, kMsg * sizeof(TYPE), target);                       \
    }                                                                                                \
    if (threadIdx.x < 32) {                                                                          \
      gshmemx_##NAME##_put_warp(dst + kPutWarp, src + 4, kWarpElems, target);                        \
      gshmemx_##NAME##_get_warp(got + 100, src + 4, kWarpElems, target);                             \
    }                                                                                                \
    gshmemx_##NAME##_put_block(dst + kPutBlock, src + 5, kBlockElems, target);                       \
    gshmemx_##NAME##_put_signal_block(dst + kPutSigBlock, src + 6, kBlockElems, sig + 2, 1,          \
                                      GSHMEM_SIGNAL_ADD, target);                                     \
    gshmemx_##NAME##_get_block(got + 200, src + 5, kBlockElems, target);                             \
    gshmemx_getmem_warp(got + 1200, src + 6, 10 * sizeof(TYPE), target);                             \
    if (threadIdx.x == 0) gshmem_quiet();                                                            \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_KERNEL)
#undef RMA_KERNEL

template <class T>
void check_rma_type(const char *name, void (*kernel)(T *, const T *, T *, uint64_t *, int)) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int target = (me + 1) % n, source = (me + n - 1) % n;
  const size_t src_len = kBlockElems + 16;
  T *dst = (T *)gshmem_calloc(kRmaSlots, sizeof(T));
  T *src = (T *)gshmem_malloc(src_len * sizeof(T));
  uint64_t *sig = (uint64_t *)gshmem_calloc(kSigs, sizeof(uint64_t));
  T *got = nullptr;
  cuda_ok(cudaMalloc(&got, 2400 * sizeof(T)), "cudaMalloc");
  std::vector<T> h(src_len);
  for (size_t k = 0; k < src_len; ++k) h[k] = pattern<T>(me, (int)k);
  cuda_ok(cudaMemcpy(src, h.data(), src_len * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  gshmem_barrier_all();
  kernel<<<1, 256>>>(dst, src, got, sig, target);
  cuda_ok(cudaGetLastError(), "launch");
  cuda_ok(cudaDeviceSynchronize(), "kernel");
  gshmem_barrier_all();

  INFO("type " << name << ", PE " << me);
  auto d = to_host(dst, kRmaSlots);
  auto g = to_host(got, 2400);
  auto s = to_host(sig, kSigs);
  auto w = [&](int k) { return pattern<T>(source, k); };  // what the writer had at src[k]
  auto r = [&](int k) { return pattern<T>(target, k); };  // what the target has at src[k]
  bool ok = d[kP] == w(0);
  for (int k = 0; k < kMsg; ++k)
    ok = ok && d[kPut + k] == w(k) && d[kPutNbi + k] == w(1 + k) && d[kPutmem + k] == w(2 + k) &&
         d[kPutSig + k] == w(3 + k);
  for (int k = 0; k < kWarpElems; ++k) ok = ok && d[kPutWarp + k] == w(4 + k);
  for (int k = 0; k < kBlockElems; ++k) ok = ok && d[kPutBlock + k] == w(5 + k) && d[kPutSigBlock + k] == w(6 + k);
  CHECK(ok);
  CHECK(s[0] == 7);
  CHECK(s[1] == 5);
  CHECK(s[2] == 1);
  bool got_ok = g[0] == r(0);
  for (int k = 0; k < kMsg; ++k)
    got_ok = got_ok && g[1 + k] == r(k) && g[1 + kMsg + k] == r(1 + k) && g[1 + 2 * kMsg + k] == r(2 + k);
  for (int k = 0; k < kWarpElems; ++k) got_ok = got_ok && g[100 + k] == r(4 + k);
  for (int k = 0; k < kBlockElems; ++k) got_ok = got_ok && g[200 + k] == r(5 + k);
  for (int k = 0; k < 10; ++k) got_ok = got_ok && g[1200 + k] == r(6 + k);
  CHECK(got_ok);
  cudaFree(got);
  gshmem_free(sig);
  gshmem_free(src);
  gshmem_free(dst);
}

// -------------------------------------------------------- atomics x type
// Slots on the target, each touched by exactly one PE (its left neighbour).
enum { A_FETCH, A_SET, A_SWAP, A_CAS_OK, A_CAS_NO, A_FINC, A_INC, A_FADD, A_ADD, A_FAND, A_AND, A_FOR, A_OR,
       A_FXOR, A_XOR, A_FSUB, A_SUB, A_FMAX, A_MAX, A_FMIN, A_MIN, A_FNANMAX, A_NANMAX, A_FNANMIN, A_NANMIN,
       A_CXX, A_SLOTS };

#define AMO_COMMON(NAME, TYPE)                                                                       \
  out[A_FETCH] = gshmem_##NAME##_atomic_fetch(dst + A_FETCH, target);                                \
  gshmem_##NAME##_atomic_set(dst + A_SET, (TYPE)42, target);                                         \
  out[A_SWAP] = gshmem_##NAME##_atomic_swap(dst + A_SWAP, (TYPE)43, target);                         \
  out[A_CAS_OK] = gshmem_##NAME##_atomic_compare_swap(dst + A_CAS_OK, (TYPE)10, (TYPE)44, target);   \
  out[A_CAS_NO] = gshmem_##NAME##_atomic_compare_swap(dst + A_CAS_NO, (TYPE)99, (TYPE)45, target);   \
  out[A_FSUB] = gshmemx_##NAME##_atomic_fetch_sub(dst + A_FSUB, (TYPE)3, target);                    \
  gshmemx_##NAME##_atomic_sub(dst + A_SUB, (TYPE)4, target);                                         \
  out[A_FMAX] = gshmemx_##NAME##_atomic_fetch_max(dst + A_FMAX, (TYPE)50, target);                   \
  gshmemx_##NAME##_atomic_max(dst + A_MAX, (TYPE)5, target);                                         \
  out[A_FMIN] = gshmemx_##NAME##_atomic_fetch_min(dst + A_FMIN, (TYPE)2, target);                    \
  gshmemx_##NAME##_atomic_min(dst + A_MIN, (TYPE)50, target);                                        \
  out[A_CXX] = gshmem::atomic_exchange<memory_order::acq_rel>(dst + A_CXX, (TYPE)46, target);

#define AMO_KERNEL(NAME, TYPE)                                                                       \
  __global__ void amo_kernel_##NAME(TYPE *dst, TYPE *out, int target) {                              \
    AMO_COMMON(NAME, TYPE)                                                                           \
    out[A_FINC] = gshmem_##NAME##_atomic_fetch_inc(dst + A_FINC, target);                            \
    gshmem_##NAME##_atomic_inc(dst + A_INC, target);                                                 \
    out[A_FADD] = gshmem_##NAME##_atomic_fetch_add(dst + A_FADD, (TYPE)5, target);                   \
    gshmem_##NAME##_atomic_add(dst + A_ADD, (TYPE)6, target);                                        \
    gshmem_quiet();                                                                                  \
  }
GSHMEM_FOR_EACH_AMO_TYPE(AMO_KERNEL)
#undef AMO_KERNEL

#define AMO_BITWISE_KERNEL(NAME, TYPE)                                                               \
  __global__ void amo_bitwise_kernel_##NAME(TYPE *dst, TYPE *out, int target) {                      \
    out[A_FAND] = gshmem_##NAME##_atomic_fetch_and(dst + A_FAND, (TYPE)6, target);                   \
    gshmem_##NAME##_atomic_and(dst + A_AND, (TYPE)3, target);                                        \
    out[A_FOR] = gshmem_##NAME##_atomic_fetch_or(dst + A_FOR, (TYPE)16, target);                     \
    gshmem_##NAME##_atomic_or(dst + A_OR, (TYPE)32, target);                                         \
    out[A_FXOR] = gshmem_##NAME##_atomic_fetch_xor(dst + A_FXOR, (TYPE)15, target);                  \
    gshmem_##NAME##_atomic_xor(dst + A_XOR, (TYPE)1, target);                                        \
    gshmem_quiet();                                                                                  \
  }
GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(AMO_BITWISE_KERNEL)
#undef AMO_BITWISE_KERNEL

#define AMO_FLOAT_KERNEL(NAME, TYPE)                                                                 \
  __global__ void amo_float_kernel_##NAME(TYPE *dst, TYPE *out, int target) {                        \
    AMO_COMMON(NAME, TYPE)                                                                           \
    out[A_FNANMAX] = gshmemx_##NAME##_atomic_fetch_nanmax(dst + A_FNANMAX, (TYPE)7, target);         \
    gshmemx_##NAME##_atomic_nanmax(dst + A_NANMAX, (TYPE)NAN, target);                             \
    out[A_FNANMIN] = gshmemx_##NAME##_atomic_fetch_nanmin(dst + A_FNANMIN, -(TYPE)0, target);        \
    gshmemx_##NAME##_atomic_nanmin(dst + A_NANMIN, (TYPE)-1, target);                                \
    gshmem_quiet();                                                                                  \
  }
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(AMO_FLOAT_KERNEL)
#undef AMO_FLOAT_KERNEL
#undef AMO_COMMON

template <class T, bool bitwise, bool floating>
void check_amo_type(const char *name, void (*kernel)(T *, T *, int)) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int target = (me + 1) % n;
  T *dst = (T *)gshmem_malloc(A_SLOTS * sizeof(T));
  T *out = nullptr;
  cuda_ok(cudaMalloc(&out, A_SLOTS * sizeof(T)), "cudaMalloc");
  // Every slot starts at 10 + me (the owner), except the NaN checks.
  std::vector<T> init(A_SLOTS);
  for (int k = 0; k < A_SLOTS; ++k) init[k] = (T)(10 + me);
  init[A_CAS_OK] = (T)10;
  if constexpr (floating) init[A_FNANMAX] = std::numeric_limits<T>::quiet_NaN();
  cuda_ok(cudaMemcpy(dst, init.data(), A_SLOTS * sizeof(T), cudaMemcpyHostToDevice), "H2D");
  cuda_ok(cudaMemset(out, 0, A_SLOTS * sizeof(T)), "memset");
  gshmem_barrier_all();
  kernel<<<1, 1>>>(dst, out, target);
  cuda_ok(cudaGetLastError(), "launch");
  cuda_ok(cudaDeviceSynchronize(), "kernel");
  gshmem_barrier_all();
  auto d = to_host(dst, A_SLOTS);
  auto o = to_host(out, A_SLOTS);
  INFO("type " << name << ", PE " << me << (bitwise ? " (bitwise)" : ""));
  const T t0 = (T)(10 + target);  // what the target's slots held (returned values)
  const T mine = (T)(10 + me);    // what my slots held (written by my left neighbour)
  if constexpr (bitwise) {
    CHECK(o[A_FAND] == t0);
    CHECK(d[A_FAND] == (T)(mine & (T)6));
    CHECK(d[A_AND] == (T)(mine & (T)3));
    CHECK(o[A_FOR] == t0);
    CHECK(d[A_FOR] == (T)(mine | (T)16));
    CHECK(d[A_OR] == (T)(mine | (T)32));
    CHECK(o[A_FXOR] == t0);
    CHECK(d[A_FXOR] == (T)(mine ^ (T)15));
    CHECK(d[A_XOR] == (T)(mine ^ (T)1));
  } else {
    CHECK(o[A_FETCH] == t0);
    CHECK(d[A_SET] == (T)42);
    CHECK(o[A_SWAP] == t0);
    CHECK(d[A_SWAP] == (T)43);
    CHECK(o[A_CAS_OK] == (T)10);
    CHECK(d[A_CAS_OK] == (T)44);
    CHECK(o[A_CAS_NO] == t0);
    CHECK(d[A_CAS_NO] == mine);
    CHECK(o[A_FSUB] == t0);
    CHECK(d[A_FSUB] == (T)(mine - (T)3));
    CHECK(d[A_SUB] == (T)(mine - (T)4));
    CHECK(o[A_FMAX] == t0);
    CHECK(d[A_FMAX] == (T)50);
    CHECK(d[A_MAX] == mine);
    CHECK(o[A_FMIN] == t0);
    CHECK(d[A_FMIN] == (T)2);
    CHECK(d[A_MIN] == mine);
    CHECK(o[A_CXX] == t0);
    CHECK(d[A_CXX] == (T)46);
    if constexpr (!floating) {
      CHECK(o[A_FINC] == t0);
      CHECK(d[A_FINC] == (T)(mine + 1));
      CHECK(d[A_INC] == (T)(mine + 1));
      CHECK(o[A_FADD] == t0);
      CHECK(d[A_FADD] == (T)(mine + 5));
      CHECK(d[A_ADD] == (T)(mine + 6));
    } else {
      CHECK(std::isnan((double)o[A_FNANMAX]));
      CHECK(d[A_FNANMAX] == (T)7);          // nanmax(NaN, 7) stores 7
      CHECK(d[A_NANMAX] == mine);           // nanmax(a, NaN) leaves a
      CHECK(o[A_FNANMIN] == t0);
      CHECK(d[A_FNANMIN] == (T)0);
      CHECK(std::signbit(d[A_FNANMIN]));  // nanmin(10, -0.0) stores -0.0
      CHECK(d[A_NANMIN] == (T)-1);
    }
  }
  cudaFree(out);
  gshmem_free(dst);
}

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

void check_contention() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  unsigned long long *counter = (unsigned long long *)gshmem_calloc(1, sizeof(unsigned long long));
  unsigned long long *fmax = nullptr;
  cuda_ok(cudaMalloc(&fmax, sizeof(*fmax)), "cudaMalloc");
  cuda_ok(cudaMemset(fmax, 0, sizeof(*fmax)), "memset");
  const int blocks = 40, threads = 250;  // 10^4 threads
  const long per_thread = kContentionAddsPerPe / (blocks * threads);
  gshmem_barrier_all();
  contention_kernel<<<blocks, threads>>>(counter, fmax, per_thread);
  cuda_ok(cudaDeviceSynchronize(), "contention kernel");
  gshmem_barrier_all();
  const unsigned long long expected = (unsigned long long)n * blocks * threads * per_thread;
  if (me == 0) {
    INFO("contention: counter on PE 0");
    CHECK(to_host(counter, 1)[0] == expected);
  }
  CHECK(to_host(fmax, 1)[0] < expected);
  cudaFree(fmax);
  gshmem_free(counter);
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

void check_lock() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  unsigned long long *lock = (unsigned long long *)gshmem_calloc(2, sizeof(unsigned long long));
  unsigned long long *count = lock + 1;
  const int blocks = 4;  // contending threads per PE, in separate blocks
  gshmem_barrier_all();
  lock_kernel<<<blocks, 1>>>(lock, count, kLockRoundsPerPe / blocks);
  cuda_ok(cudaDeviceSynchronize(), "lock kernel");
  gshmem_barrier_all();
  if (me == 0) {
    auto h = to_host(lock, 2);
    CHECK(h[0] == 0);
    CHECK(h[1] == (unsigned long long)n * blocks * (kLockRoundsPerPe / blocks));
  }
  gshmem_free(lock);
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

void check_litmus() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int target = (me + 1) % n;
  uint64_t *sym = (uint64_t *)gshmem_calloc(4096, sizeof(uint64_t));
  uint64_t *msg = sym, *sig = sym + 64, *wide_sig = sym + 72, *a = sym + 80, *b = sym + 96, *wide_msg = sym + 1024;
  uint64_t *staging = nullptr;
  unsigned long long *violations = nullptr;
  cuda_ok(cudaMalloc(&staging, 2048 * sizeof(uint64_t)), "cudaMalloc");
  cuda_ok(cudaMalloc(&violations, 2 * sizeof(unsigned long long)), "cudaMalloc");
  cuda_ok(cudaMemset(violations, 0, 2 * sizeof(unsigned long long)), "memset");
  gshmem_barrier_all();
  put_signal_litmus<<<4, 256>>>(msg, sig, wide_msg, wide_sig, staging, violations, kLitmusIterations, target);
  cuda_ok(cudaDeviceSynchronize(), "put_signal litmus");
  gshmem_barrier_all();
  fence_litmus<<<2, 1>>>(a, b, staging + 1100, violations + 1, kLitmusIterations, target);
  cuda_ok(cudaDeviceSynchronize(), "fence litmus");
  gshmem_barrier_all();
  auto v = to_host(violations, 2);
  INFO("PE " << me);
  CHECK(v[0] == 0);  // data before signal
  CHECK(v[1] == 0);  // two puts to one peer in order across a fence
  auto s = to_host(sym, 128);
  CHECK(s[64] == (uint64_t)kLitmusIterations);
  CHECK(s[96] == (uint64_t)kLitmusIterations);
  cudaFree(violations);
  cudaFree(staging);
  gshmem_free(sym);
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

void check_barrier() {
  unsigned long long *counter = (unsigned long long *)gshmem_calloc(1, sizeof(unsigned long long));
  unsigned long long *violations = nullptr;
  cuda_ok(cudaMalloc(&violations, sizeof(*violations)), "cudaMalloc");
  cuda_ok(cudaMemset(violations, 0, sizeof(*violations)), "memset");
  gshmem_barrier_all();
  barrier_stress<<<1, 128>>>(counter, violations, kBarrierIterations);
  cuda_ok(cudaDeviceSynchronize(), "barrier stress");
  gshmem_barrier_all();
  INFO("PE " << gshmem_my_pe());
  CHECK(to_host(violations, 1)[0] == 0);
  CHECK(to_host(counter, 1)[0] == (unsigned long long)kBarrierIterations);
  cudaFree(violations);
  gshmem_free(counter);
}

}  // namespace

// One test case for the whole run: init and finalize are collective, so every
// PE must walk the same sequence (checks use CHECK, never REQUIRE, after init).
TEST_CASE("remote updates on GPUs", "[update][gpu]") {
  REQUIRE(gshmem_init() == GSHMEM_SUCCESS);
  REQUIRE(gshmem_n_pes() >= 2);
#define RUN_RMA(NAME, TYPE) check_rma_type<TYPE>(#NAME, rma_kernel_##NAME);
  GSHMEM_FOR_EACH_RMA_TYPE(RUN_RMA)
#undef RUN_RMA
#define RUN_AMO(NAME, TYPE) check_amo_type<TYPE, false, false>(#NAME, amo_kernel_##NAME);
  GSHMEM_FOR_EACH_AMO_TYPE(RUN_AMO)
#undef RUN_AMO
#define RUN_AMO_BITWISE(NAME, TYPE) check_amo_type<TYPE, true, false>(#NAME, amo_bitwise_kernel_##NAME);
  GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(RUN_AMO_BITWISE)
#undef RUN_AMO_BITWISE
#define RUN_AMO_FLOAT(NAME, TYPE) check_amo_type<TYPE, false, true>(#NAME, amo_float_kernel_##NAME);
  GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(RUN_AMO_FLOAT)
#undef RUN_AMO_FLOAT
  check_contention();
  check_lock();
  check_litmus();
  check_barrier();
  gshmem_finalize();
}
