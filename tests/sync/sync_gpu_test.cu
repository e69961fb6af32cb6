// GPU tests of the wait/test families across PEs (2 and 4 GPUs). Kernels
// live in this ordinary .cu file, compiled without -rdc, and call the public
// C names. The updating side uses only gshmem_ptr and the ordering layer.
#include <gshmem/runtime.h>
#include <gshmem/sync_ext.h>

#include <cuda_runtime.h>
#include <algorithm>
#include <vector>

#include "catch.hpp"
#include "test_support.h"

namespace gd = gshmem::detail;
using gshmem::memory_order;
using gshmem::thread_scope;

namespace {

template <class T>
__device__ T *peer(T *p, int pe) {
  return (T *)gshmem_ptr(p, pe);
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
      gd::atomic_store<memory_order::release, thread_scope::system>(peer(ack, partner), i);
    } else {
      for (int k = 0; k < 4; ++k)
        gd::atomic_store<memory_order::relaxed, thread_scope::system>(peer(payload + 32 * k, partner), i);
      gd::atomic_store<memory_order::release, thread_scope::system>(peer(flag, partner), i);
      gshmem_uint64_wait_until(ack, GSHMEM_CMP_GE, i);
    }
  }
  *violations = bad;
}

// ---- one type: waiter checks single, _all, _any, _some, signal; updater stores / atomics
constexpr int kElems = 64;

#define SYNC_GPU_TYPES(X) X(int, int) X(uint64, uint64_t) X(short, short) X(size, size_t) X(ptrdiff, ptrdiff_t)

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
      TYPE *remote = peer(ivars + i, target);                                                              \
      if (use_atomics && sizeof(TYPE) >= 4)                                                                \
        (void)gd::atomic_fetch_add<memory_order::release, thread_scope::system>(remote, (TYPE)5);         \
      else                                                                                                 \
        gd::atomic_store<memory_order::release, thread_scope::system>(remote, (TYPE)5);                   \
    }                                                                                                      \
  }
SYNC_GPU_TYPES(SYNC_GPU_KERNELS)

__global__ void signal_waiter(uint64_t *sig, unsigned long long *result) {
  result[0] = gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, 41);
}
__global__ void signal_updater(uint64_t *sig, int target) {
  (void)gd::atomic_fetch_add<memory_order::release, thread_scope::system>(peer(sig, target), (uint64_t)42);
}

// ---- fan-in: every other PE writes its payload then its flag on PE 0
__global__ void fanin_sender(long *flags, long *payload, int me) {
  gd::atomic_store<memory_order::relaxed, thread_scope::system>(peer(payload + me, 0), (long)(1000 + me));
  gd::atomic_store<memory_order::release, thread_scope::system>(peer(flags + me, 0), (long)me);
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
__global__ void coop_local(const int *pattern_unused, long long *a, size_t n, long long *values, int *status,
                           size_t *indices_block, size_t *indices_warp, unsigned long long *per_thread) {
  (void)pattern_unused;
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
    gd::atomic_store<memory_order::release, thread_scope::system>(peer(a + i, target), 9ull);
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

struct runtime_scope {
  runtime_scope() { REQUIRE(gshmem_init() == GSHMEM_SUCCESS); }
  ~runtime_scope() { gshmem_finalize(); }
};

template <class T>
T *sym_zeroed(size_t count) {
  T *p = (T *)gshmem_malloc(count * sizeof(T));
  REQUIRE(p != nullptr);
  REQUIRE(cudaMemset(p, 0, count * sizeof(T)) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  return p;
}

}  // namespace

TEST_CASE("wait/test across GPUs", "[sync][gpu]") {
  runtime_scope rt;
  const int me = gshmem_my_pe(), n_pes = gshmem_n_pes();
  REQUIRE(n_pes >= 2);
  const int partner = me ^ 1;
  const bool paired = partner < n_pes;
  unsigned long long *result;
  REQUIRE(cudaMallocManaged(&result, 64 * sizeof(unsigned long long)) == cudaSuccess);

  SECTION("message-passing litmus, 10^6 iterations, zero violations") {
    uint64_t *flag = sym_zeroed<uint64_t>(1), *ack = sym_zeroed<uint64_t>(1), *payload = sym_zeroed<uint64_t>(128);
    gshmemi_host_barrier_all();
    if (paired) {
      litmus_kernel<<<1, 1>>>(partner, (me & 1) == 0, flag, ack, payload, 1000000, result);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK(result[0] == 0);
    }
    gshmemi_host_barrier_all();
  }

#define SYNC_GPU_SECTION(TYPENAME, TYPE)                                                              \
  SECTION("updates by stores and atomics: " #TYPENAME) {                                              \
    for (bool atomics : {false, true}) {                                                              \
      TYPE *ivars = sym_zeroed<TYPE>(kElems);                                                         \
      size_t *indices = sym_zeroed<size_t>(kElems);                                                   \
      gshmemi_host_barrier_all();                                                                     \
      if (paired && (me & 1) == 0) {                                                                  \
        waiter_##TYPENAME<<<1, 1>>>(ivars, indices, result);                                         \
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);                                              \
        CHECK(result[0] == 1);                                                                        \
        CHECK(result[1] == 1);                                                                        \
        CHECK(result[2] < (unsigned long long)kElems);                                                \
        CHECK(result[3] == (unsigned long long)kElems);                                               \
      } else if (paired) {                                                                            \
        updater_##TYPENAME<<<1, 1>>>(ivars, partner, atomics);                                       \
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);                                              \
      }                                                                                               \
      gshmemi_host_barrier_all();                                                                     \
      gshmem_free(indices);                                                                           \
      gshmem_free(ivars);                                                                             \
    }                                                                                                 \
  }
  SYNC_GPU_TYPES(SYNC_GPU_SECTION)

  SECTION("signal_wait_until returns the value an atomic add produced") {
    uint64_t *sig = sym_zeroed<uint64_t>(1);
    gshmemi_host_barrier_all();
    if (paired && (me & 1) == 0) {
      signal_waiter<<<1, 1>>>(sig, result);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK(result[0] == 42);
    } else if (paired) {
      signal_updater<<<1, 1>>>(sig, partner);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    }
    gshmemi_host_barrier_all();
  }

  SECTION("fan-in from every other PE to PE 0") {
    long *flags = sym_zeroed<long>(n_pes), *payload = sym_zeroed<long>(n_pes);
    int *status;
    size_t *indices;
    REQUIRE(cudaMallocManaged(&status, n_pes * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&indices, n_pes * sizeof(size_t)) == cudaSuccess);
    for (int pe = 0; pe < n_pes; ++pe) status[pe] = pe == 0;
    gshmemi_host_barrier_all();
    if (me == 0) {
      fanin_receiver<<<1, 1>>>(flags, payload, n_pes, status, indices, result);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK(result[0] == 0);
      CHECK(result[1] == (unsigned long long)(n_pes - 1));
      CHECK(result[2] >= 1);
      CHECK(result[2] < (unsigned long long)n_pes);
      std::vector<size_t> got(indices, indices + result[1]);
      std::sort(got.begin(), got.end());
      for (int k = 0; k < (int)got.size(); ++k) CHECK(got[k] == (size_t)(k + 1));
    } else {
      fanin_sender<<<1, 1>>>(flags, payload, me);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    }
    gshmemi_host_barrier_all();
    cudaFree(status);
    cudaFree(indices);
  }

  SECTION("cooperative forms: block and warp waits released from another GPU") {
    const size_t n = 3000;
    unsigned long long *a = sym_zeroed<unsigned long long>(3 * n);
    size_t *indices;
    unsigned long long *per_thread;
    REQUIRE(cudaMallocManaged(&indices, n * sizeof(size_t)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&per_thread, 2 * 256 * sizeof(unsigned long long)) == cudaSuccess);
    gshmemi_host_barrier_all();
    if (paired && (me & 1) == 0) {
      coop_remote_wait<<<1, 256>>>(a, n, indices, per_thread);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      for (int t = 0; t < 256; ++t) {
        CHECK(per_thread[2 * t] == per_thread[0]);
        CHECK(per_thread[2 * t] < n);
      }
      for (int t = 0; t < 32; ++t) CHECK(per_thread[2 * t + 1] == per_thread[1]);
      REQUIRE(per_thread[1] >= 1);
      REQUIRE(per_thread[1] <= n);
      std::vector<size_t> got(indices, indices + per_thread[1]);
      std::sort(got.begin(), got.end());
      CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
      CHECK(got.back() < n);
    } else if (paired) {
      coop_remote_set<<<1, 128>>>(a, n, partner);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    }
    gshmemi_host_barrier_all();
    cudaFree(indices);
    cudaFree(per_thread);
  }
  cudaFree(result);
}

TEST_CASE("cooperative forms agree with the reference on local data", "[sync][gpu]") {
  runtime_scope rt;
  const size_t n = 5000;
  const int threads = 256;
  long long *a, *values;
  int *status;
  size_t *ib, *iw;
  unsigned long long *r;
  REQUIRE(cudaMallocManaged(&a, n * sizeof(long long)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&values, n * sizeof(long long)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&status, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&ib, n * sizeof(size_t)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&iw, 2 * n * sizeof(size_t)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&r, threads * 12 * sizeof(unsigned long long)) == cudaSuccess);
  std::vector<size_t> sevens;
  for (size_t i = 0; i < n; ++i) {
    status[i] = i % 11 == 3;  // excluded
    a[i] = (i % 97 == 5) ? 7 : (long long)(i % 5);
    if (status[i]) a[i] = -100;  // excluded, would fail every test below
    values[i] = a[i];
    if (!status[i] && a[i] == 7) sevens.push_back(i);
  }
  REQUIRE(!sevens.empty());
  coop_local<<<1, threads>>>(nullptr, a, n, values, status, ib, iw, r);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t);
    const unsigned long long *x = r + (size_t)t * 12;
    CHECK(x[0] == 1);
    CHECK(x[1] == 0);
    CHECK(std::find(sevens.begin(), sevens.end(), (size_t)x[2]) != sevens.end());
    CHECK(x[3] == sevens.size());
    CHECK(x[4] < n);
    CHECK(status[x[4]] == 0);
    CHECK(x[5] == (unsigned long long)-1);
    for (int k = 0; k < 6; ++k) CHECK(x[k] == r[k]);  // one call, one result for every thread
    if (t < 32) {
      CHECK(x[6] == 1);
      CHECK(std::find(sevens.begin(), sevens.end(), (size_t)x[7]) != sevens.end());
      CHECK(x[8] == sevens.size());
      CHECK(x[9] == n - (n + 7) / 11);  // every included element equals its own value
      CHECK(std::find(sevens.begin(), sevens.end(), (size_t)x[10]) != sevens.end());
      CHECK(x[11] == 1);
      for (int k = 6; k < 12; ++k) CHECK(x[k] == r[k]);
    }
  }
  std::vector<size_t> block_set(ib, ib + sevens.size()), warp_set(iw, iw + sevens.size());
  std::sort(block_set.begin(), block_set.end());
  std::sort(warp_set.begin(), warp_set.end());
  CHECK(block_set == sevens);
  CHECK(warp_set == sevens);
  cudaFree(a); cudaFree(values); cudaFree(status); cudaFree(ib); cudaFree(iw); cudaFree(r);
}

TEST_CASE("block forms agree across block shapes", "[sync][gpu]") {
  runtime_scope rt;
  const dim3 shapes[] = {dim3(1), dim3(33), dim3(100), dim3(7, 5, 3), dim3(1024)};
  for (const dim3 &shape : shapes) {
    const size_t threads = (size_t)shape.x * shape.y * shape.z;
    // Two satisfied elements owned by different members: position
    // threads - 1 (the last thread, in the partial warp if there is one)
    // and 2 * threads (thread 0's third load).
    const size_t n = 3 * threads + 5, low = threads - 1, high = 2 * threads;
    INFO("block of " << shape.x << "x" << shape.y << "x" << shape.z);
    long long *a;
    unsigned long long *r;
    REQUIRE(cudaMallocManaged(&a, n * sizeof(long long)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&r, threads * 5 * sizeof(unsigned long long)) == cudaSuccess);
    for (size_t i = 0; i < n; ++i) a[i] = (long long)(i % 7);  // 0..6
    a[low] = 7;
    a[high] = 7;
    coop_shapes<<<1, shape>>>(a, n, r);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const bool low_first = r[0] == low;
    CHECK((r[0] == low || r[0] == high));
    CHECK(r[1] == (low_first ? high : low));  // the rotation moved on to the other one
    CHECK(r[2] == 1);
    CHECK(r[3] == 0);
    CHECK((r[4] == low || r[4] == high));
    for (size_t t = 1; t < threads; ++t) {
      INFO("thread " << t);
      for (int k = 0; k < 5; ++k) CHECK(r[t * 5 + k] == r[k]);
    }
    cudaFree(a);
    cudaFree(r);
  }
}
