// GPU tests of the wait/test families across PEs (2 and 4 GPUs). The
// kernels are in sync_gpu_kernels.cu (see sync_gpu_kernels.h).
#include <gshmem/runtime.h>

#include <cuda_runtime.h>
#include <algorithm>
#include <vector>

#include "catch.hpp"
#include "sync_gpu_kernels.h"
#include "gpu_test_support.h"

using namespace sync_gpu;

namespace {

using gshmem_test::runtime_scope;
using gshmem_test::sym_zeroed;


}  // namespace

TEST_CASE("wait/test across GPUs", "[sync][gpu]") {
  runtime_scope rt;
  const int me = gshmem_my_pe(), n_pes = gshmem_n_pes();
  REQUIRE(n_pes >= 2);
  const int partner = me ^ 1;
  const bool paired = partner < n_pes;
  unsigned long long *result;
  REQUIRE(cudaMallocManaged(&result, 64 * sizeof(unsigned long long)) == cudaSuccess);

  SECTION("message-passing litmus, 10^6 iterations (fewer with GSHMEM_TEST_ITERATION_DIVISOR), zero violations") {
    uint64_t *flag = sym_zeroed<uint64_t>(1), *ack = sym_zeroed<uint64_t>(1), *payload = sym_zeroed<uint64_t>(128);
    gshmemi_host_barrier_all();
    if (paired) {
      REQUIRE(launch_litmus(partner, (me & 1) == 0, flag, ack, payload, gshmem_test::scaled_iterations(1000000), result) == cudaSuccess);
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
        REQUIRE(launch_waiter_##TYPENAME(ivars, indices, result) == cudaSuccess);                                       \
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);                                              \
        CHECK(result[0] == 1);                                                                        \
        CHECK(result[1] == 1);                                                                        \
        CHECK(result[2] < (unsigned long long)kElems);                                                \
        CHECK(result[3] == (unsigned long long)kElems);                                               \
      } else if (paired) {                                                                            \
        REQUIRE(launch_updater_##TYPENAME(ivars, partner, atomics) == cudaSuccess);                                     \
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
      REQUIRE(launch_signal_waiter(sig, result) == cudaSuccess);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK(result[0] == 42);
    } else if (paired) {
      REQUIRE(launch_signal_updater(sig, partner) == cudaSuccess);
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
      REQUIRE(launch_fanin_receiver(flags, payload, n_pes, status, indices, result) == cudaSuccess);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK(result[0] == 0);
      CHECK(result[1] == (unsigned long long)(n_pes - 1));
      CHECK(result[2] >= 1);
      CHECK(result[2] < (unsigned long long)n_pes);
      std::vector<size_t> got(indices, indices + result[1]);
      std::sort(got.begin(), got.end());
      for (int k = 0; k < (int)got.size(); ++k) CHECK(got[k] == (size_t)(k + 1));
    } else {
      REQUIRE(launch_fanin_sender(flags, payload, me) == cudaSuccess);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    }
    gshmemi_host_barrier_all();
    cudaFree(status);
    cudaFree(indices);
  }

  SECTION("block _all on 1 and 32 elements (one-warp path) released from another GPU: every thread sees the payload") {
    const uint64_t rounds = gshmem_test::scaled_iterations(20000);
    uint64_t *flags = sym_zeroed<uint64_t>(32), *payload = sym_zeroed<uint64_t>(kSmallAllPayload);
    uint64_t *ack = sym_zeroed<uint64_t>(1);
    int *odd_masked;  // elements 1, 3, 5, ... excluded: the producer never sets them
    REQUIRE(cudaMallocManaged(&odd_masked, 32 * sizeof(int)) == cudaSuccess);
    for (int i = 0; i < 32; ++i) odd_masked[i] = i % 2;
    const struct { size_t n; const int *status; int threads; const char *name; } cases[] = {
        {1, nullptr, 1024, "n = 1, 1024 threads"},
        {32, nullptr, 1024, "n = 32, 1024 threads"},
        {32, odd_masked, 1024, "n = 32, odd elements masked, 1024 threads"},
        {32, nullptr, 48, "n = 32, 48 threads (a partial second warp)"},
    };
    for (const auto &c : cases) {
      INFO(c.name);
      GSHMEM_TEST_CUDA(cudaMemset(flags, 0, 32 * sizeof(uint64_t)));
      GSHMEM_TEST_CUDA(cudaMemset(ack, 0, sizeof(uint64_t)));
      GSHMEM_TEST_CUDA(cudaMemset(payload, 0, kSmallAllPayload * sizeof(uint64_t)));
      result[0] = 0;
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      gshmemi_host_barrier_all();
      if (paired && (me & 1) == 0) {
        REQUIRE(launch_small_all_consumer(flags, c.n, c.status, payload, ack, partner, rounds, c.threads, result) ==
                cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(result[0] == 0);  // payload violations over every round and thread
      } else if (paired) {
        REQUIRE(launch_small_all_producer(flags, c.n, c.status, payload, ack, partner, rounds) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      }
      gshmemi_host_barrier_all();
    }
    cudaFree(odd_masked);
    gshmem_free(ack);
    gshmem_free(payload);
    gshmem_free(flags);
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
      REQUIRE(launch_coop_remote_wait(a, n, indices, per_thread) == cudaSuccess);
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
      REQUIRE(launch_coop_remote_set(a, n, partner) == cudaSuccess);
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
  REQUIRE(launch_coop_local(a, n, values, status, ib, iw, r, threads) == cudaSuccess);
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
    REQUIRE(launch_coop_shapes(a, n, r, shape) == cudaSuccess);
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

// Block _all on arrays of at most 32 elements (warp 0 polls them alone,
// with acquire loads, and the block meets at one barrier) and just past
// that size (the general block scan), against the reference: every status
// mask kind (none, all included, all excluded, partial with the one
// unsatisfied element included or excluded), blocks of 1024, 64, 48, 16 and
// 1 threads (n above the thread count takes the general scan), and every
// thread must get the same result.
TEST_CASE("block _all on small arrays agrees with the reference", "[sync][gpu]") {
  runtime_scope rt;
  const size_t max_n = 40;
  long long *a, *values;
  int *status;
  unsigned long long *r;
  const dim3 shapes[] = {dim3(1024), dim3(64), dim3(16, 3), dim3(16), dim3(1)};
  REQUIRE(cudaMallocManaged(&a, max_n * sizeof(long long)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&values, max_n * sizeof(long long)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&status, max_n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&r, 1024 * kSmallAllResults * sizeof(unsigned long long)) == cudaSuccess);
  enum Mask { kNull, kNone, kAll, kPartialUnsatisfiedOut, kPartialUnsatisfiedIn };
  const char *mask_names[] = {"status NULL", "no element masked", "every element masked",
                              "partial, the unsatisfied element masked", "partial, the unsatisfied element included"};
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(16), size_t(31), size_t(32), size_t(33)}) {
    const size_t u = n / 2;  // the one element below 10
    for (int mask = kNull; mask <= kPartialUnsatisfiedIn; ++mask) {
      size_t included = 0;
      bool u_included = false;
      for (size_t i = 0; i < n; ++i) {
        a[i] = i == u ? 3 : 10;
        values[i] = 10;
        status[i] = mask == kAll                                             ? 1
                    : mask == kPartialUnsatisfiedOut || mask == kPartialUnsatisfiedIn ? (int)(i % 3 == 1)
                                                                                      : 0;
        if (mask == kPartialUnsatisfiedOut && i == u) status[i] = 1;
        if (mask == kPartialUnsatisfiedIn && i == u) status[i] = 0;
        const bool in = mask == kNull || status[i] == 0;
        included += in;
        if (in && i == u) u_included = true;
      }
      // The reference: all included elements satisfy the comparison.
      const unsigned long long ge10 = u_included ? 0 : 1;  // a[u] = 3 is the only one below 10
      const unsigned long long lt3 = included == 0 ? 1 : 0;  // nothing is below 3
      for (const dim3 &shape : shapes) {
        const size_t threads = (size_t)shape.x * shape.y * shape.z;
        INFO("n = " << n << ", " << mask_names[mask] << ", block of " << shape.x << "x" << shape.y << "x"
                    << shape.z);
        for (size_t k = 0; k < threads * kSmallAllResults; ++k) r[k] = ~0ull;
        REQUIRE(launch_small_all_local(a, n, values, mask == kNull ? nullptr : status, r, shape) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(r[0] == ge10);
        CHECK(r[1] == ge10);
        CHECK(r[2] == lt3);
        CHECK(r[3] == 1);
        CHECK(r[4] == 1);
        CHECK(r[5] == ge10);
        size_t disagree = 0;
        for (size_t t = 1; t < threads; ++t)
          for (int k = 0; k < kSmallAllResults; ++k) disagree += r[t * kSmallAllResults + k] != r[k];
        CHECK(disagree == 0);
      }
    }
  }
  cudaFree(a); cudaFree(values); cudaFree(status); cudaFree(r);
}

// OpenSHMEM: a series of _any calls returns every element that stays
// satisfied. Adversarial for cursors shared by arrays or callers: 1536
// arrays at the heap's 256-byte granularity (more arrays than cursor slots),
// two callers per array taking turns, test and wait forms alternating.
// How many rounds: a caller whose cursor entry another caller took starts
// at a random element (sync_core.h, any_cursor), and with up to 3072
// callers on 1024 entries that is nearly every call. An even array's second
// element then comes back with probability 1/4 a call, so a caller misses
// it in all of R rounds with probability (3/4)^R: at 48 rounds 1e-6 a
// caller, about 0.5% a run over the test's 4600 such callers (one failure
// seen, two PEs a GPU under MPS); at 128 rounds 1e-16. A cursor that
// starved an element would still miss it in every round.
TEST_CASE("_any returns every satisfied element, whatever other arrays and callers exist", "[sync][gpu]") {
  runtime_scope rt;
  const int n_arrays = 1536, rounds = 128;
  long *arrays;
  unsigned *seen;
  REQUIRE(cudaMallocManaged(&arrays, (size_t)n_arrays * kAnyPitch * sizeof(long)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&seen, 2 * n_arrays * sizeof(unsigned)) == cudaSuccess);
  for (int a = 0; a < n_arrays; ++a) {
    long *x = arrays + (size_t)a * kAnyPitch;
    for (int i = 0; i < kAnyPitch; ++i) x[i] = 0;
    if (a % 2 == 0) x[0] = x[1] = 1;
    else x[3] = 1;
  }
  const struct { int form; int callers; const char *name; } forms[] = {
      {kAnyFormThreads, 2, "two threads taking turns"},
      {kAnyFormWarps, 2, "two warps taking turns"},
      {kAnyFormBlock, 1, "block"},
      {kAnyFormVector, 1, "one thread, _vector"},
  };
  for (const auto &f : forms) {
    INFO(f.name);
    REQUIRE(cudaMemset(seen, 0, 2 * n_arrays * sizeof(unsigned)) == cudaSuccess);
    REQUIRE(launch_any_liveness(arrays, n_arrays, rounds, f.form, seen) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    int starved = 0, wrong = 0;
    for (int c = 0; c < f.callers; ++c)
      for (int a = 0; a < n_arrays; ++a) {
        const unsigned expected = a % 2 == 0 ? 0x3u : 0x8u;
        const unsigned got = seen[c * n_arrays + a];
        wrong += (got & ~expected) != 0;
        starved += got != expected && (got & ~expected) == 0;
      }
    CHECK(wrong == 0);    // never an unsatisfied or out-of-range index
    CHECK(starved == 0);  // every satisfied element came back to every caller
  }
  cudaFree(arrays);
  cudaFree(seen);
}

// The one-thread scans keep many loads in flight, so they need more than
// the 64 registers per thread that a 1024-thread block allows. Documented
// contract (sync.h, "Registers"): a kernel that launches with more than
// 65536 / registers threads declares __launch_bounds__; with it the kernel
// launches and every scan is still right; without it the launch fails with
// cudaErrorLaunchOutOfResources exactly when the count is over the budget.
// The warp forms fit the budget as they are.
TEST_CASE("one-thread scans in a 1024-thread block", "[sync][gpu]") {
  runtime_scope rt;
  const size_t n = 5000, hit = 1234, vector_hit = 777;
  uint64_t *ivars, *values;
  size_t *indices;
  unsigned long long *r;
  REQUIRE(cudaMallocManaged(&ivars, n * sizeof(uint64_t)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&values, n * sizeof(uint64_t)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&indices, 2 * n * sizeof(size_t)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&r, 8 * sizeof(unsigned long long)) == cudaSuccess);
  for (size_t i = 0; i < n; ++i) ivars[i] = i % 7 == 6 ? 3 : 1;  // never 2
  ivars[hit] = 2;
  for (size_t i = 0; i < n; ++i) values[i] = ivars[i];
  values[vector_hit] = ivars[vector_hit] - 1;  // the only element greater than its value
  for (ScansIn1024 variant : {kOneThreadUnbounded, kOneThreadBounded, kWarpForms}) {
    INFO((variant == kOneThreadUnbounded ? "one thread, no __launch_bounds__"
          : variant == kOneThreadBounded ? "one thread, __launch_bounds__(1024)"
                                         : "warp forms, no __launch_bounds__"));
    int registers = 0;
    REQUIRE(scans_1024_registers(variant, &registers) == cudaSuccess);
    INFO("registers per thread: " << registers);
    for (int k = 0; k < 8; ++k) r[k] = ~0ull;
    const cudaError_t launched = launch_scans_1024(variant, ivars, n, values, indices, r);
    if (variant == kOneThreadUnbounded && registers > 64) {
      CHECK(launched == cudaErrorLaunchOutOfResources);
      continue;
    }
    CHECK(registers <= 64);
    REQUIRE(launched == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(r[0] == 1);
    CHECK(r[1] == 1);
    CHECK(r[2] == hit);
    CHECK(r[3] == hit);
    CHECK(r[4] == 1);
    CHECK(indices[0] == hit);
    CHECK(r[5] == 1);
    CHECK(r[6] == vector_hit);
    CHECK(r[7] == 1);
    CHECK(indices[n] == vector_hit);
  }
  cudaFree(ivars); cudaFree(values); cudaFree(indices); cudaFree(r);
}

// The wide one-thread _any scan (32 loads of 8 bytes in flight, chosen by
// the caller: docs/api.md) in a block of 512 threads, the size it is
// documented for: it launches, finds the satisfied elements of a large
// array in rotation (two hits: consecutive calls alternate), and a test for
// a value no element holds finds none.
TEST_CASE("wide one-thread _any in a 512-thread block", "[sync][gpu]") {
  runtime_scope rt;
  const size_t n = 5000, hit_a = 1234, hit_b = 4321;
  uint64_t *ivars;
  unsigned long long *r;
  REQUIRE(cudaMallocManaged(&ivars, n * sizeof(uint64_t)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&r, 6 * sizeof(unsigned long long)) == cudaSuccess);
  for (size_t i = 0; i < n; ++i) ivars[i] = 1;
  ivars[hit_a] = ivars[hit_b] = 2;
  for (int k = 0; k < 6; ++k) r[k] = 0;
  int registers = 0;
  REQUIRE(wide_any_registers(&registers) == cudaSuccess);
  INFO("registers per thread: " << registers);
  CHECK(registers * 512 <= 65536);
  REQUIRE(launch_wide_any(ivars, n, 512, r) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(((r[0] == hit_a && r[1] == hit_b) || (r[0] == hit_b && r[1] == hit_a)));
  CHECK(r[2] == r[0]);
  CHECK(r[3] == r[1]);
  CHECK(r[4] == r[0]);
  CHECK(r[5] == ~0ull);
  cudaFree(ivars);
  cudaFree(r);
}
