// Host-initiated RMA and atomics on 2 or more PEs (one GPU each), under mpirun.
//
// Each case: PEs write with host calls, meet at a host barrier, and the
// target checks its own heap. Only CHECK (never REQUIRE) between collective
// calls, so a failing PE still reaches every barrier and free.
#include <gshmem/gshmem.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.h"

namespace {



// Polls (acquire) until *flag == value, then counts payload bytes that differ from `expected`.
__global__ void wait_then_check(int *flag, int value, const unsigned char *payload, size_t n, unsigned char expected,
                                unsigned long long *bad) {
  gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, value);
  unsigned long long count = 0;
  for (size_t i = 0; i < n; ++i) count += payload[i] != expected;
  *bad = count;
}

bool ensure_init() { return gshmem_test::init_once({reinterpret_cast<const void *>(&wait_then_check)}); }

unsigned char pattern(int pe, size_t i) { return static_cast<unsigned char>(pe * 37 + i * 13 + 1); }

std::vector<unsigned char> read_local(const void *sym, size_t n) {
  std::vector<unsigned char> out(n);
  if (n) GSHMEM_TEST_CUDA(cudaMemcpy(out.data(), sym, n, cudaMemcpyDeviceToHost));
  return out;
}

// Sizes across the copy's classes: empty, sub-word, odd, word, one 16-byte
// vector plus a tail, a page plus change, several megabytes.
const size_t kSizes[] = {0, 1, 3, 8, 17, 4099, (4u << 20) + 5};
const size_t kMaxSize = (4u << 20) + 5;
// Offsets into the buffers, so that addresses are not all 256-byte aligned.
const size_t kOffsets[] = {0, 1, 8};

}  // namespace

TEST_CASE("host put and get, blocking and nbi, every size, host and device buffers") {
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  REQUIRE(n >= 2);
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  unsigned char *sym = static_cast<unsigned char *>(gshmem_malloc(kMaxSize + 64));
  unsigned char *dev_src = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&dev_src, kMaxSize + 64));
  REQUIRE(sym);
  std::vector<unsigned char> host_src(kMaxSize + 64);
  for (size_t i = 0; i < host_src.size(); ++i) host_src[i] = pattern(me, i);
  GSHMEM_TEST_CUDA(cudaMemcpy(dev_src, host_src.data(), host_src.size(), cudaMemcpyHostToDevice));

  for (int form = 0; form < 4; ++form) {  // 0 put from host, 1 put_nbi from device, 2 putmem, 3 putmem_nbi
    for (size_t size : kSizes) {
      for (size_t off : kOffsets) {
        INFO("form " << form << " size " << size << " offset " << off);
        GSHMEM_TEST_CUDA(cudaMemset(sym, 0, kMaxSize + 64));
        GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
        gshmem_barrier_all();
        const unsigned char *src = (form % 2 == 0) ? host_src.data() + off : dev_src + off;
        switch (form) {
          case 0: gshmem_uchar_put(sym + off, src, size, right); break;
          case 1: gshmem_uchar_put_nbi(sym + off, src, size, right); break;
          case 2: gshmem_putmem(sym + off, src, size, right); break;
          default: gshmem_putmem_nbi(sym + off, src, size, right); break;
        }
        CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
        if (form % 2 == 1) gshmem_quiet();
        gshmem_barrier_all();
        const std::vector<unsigned char> got = read_local(sym, kMaxSize + 64);
        size_t bad = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          const bool inside = i >= off && i < off + size;
          bad += got[i] != (inside ? pattern(left, i) : 0);
        }
        CHECK(bad == 0);
      }
    }
  }

  // get / get_nbi / getmem: each PE's heap holds its pattern; read the right neighbour's.
  GSHMEM_TEST_CUDA(cudaMemcpy(sym, host_src.data(), kMaxSize + 64, cudaMemcpyHostToDevice));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();
  std::vector<unsigned char> host_dst(kMaxSize + 64);
  for (int form = 0; form < 3; ++form) {  // 0 get to host, 1 get_nbi to device, 2 getmem to host
    for (size_t size : kSizes) {
      for (size_t off : kOffsets) {
        INFO("get form " << form << " size " << size << " offset " << off);
        std::fill(host_dst.begin(), host_dst.end(), 0);
        GSHMEM_TEST_CUDA(cudaMemset(dev_src, 0, kMaxSize + 64));
        GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
        if (form == 0) gshmem_uchar_get(host_dst.data() + off, sym + off, size, right);
        if (form == 1) {
          gshmem_uchar_get_nbi(dev_src + off, sym + off, size, right);
          gshmem_quiet();
          GSHMEM_TEST_CUDA(cudaMemcpy(host_dst.data(), dev_src, kMaxSize + 64, cudaMemcpyDeviceToHost));
        }
        if (form == 2) gshmem_getmem(host_dst.data() + off, sym + off, size, right);
        CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
        size_t bad = 0;
        for (size_t i = 0; i < host_dst.size(); ++i) {
          const bool inside = i >= off && i < off + size;
          bad += host_dst[i] != (inside ? pattern(right, i) : 0);
        }
        CHECK(bad == 0);
      }
    }
  }
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaFree(dev_src));
  gshmem_free(sym);
}

TEST_CASE("host p and g for every RMA type") {
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  // One 8-byte slot per type, in the order of the type table.
  int count = 0;
#define GSHMEM_TEST_COUNT(NAME, TYPE) ++count;
  GSHMEM_FOR_EACH_RMA_TYPE(GSHMEM_TEST_COUNT)
#undef GSHMEM_TEST_COUNT
  unsigned long long *slots = static_cast<unsigned long long *>(gshmem_calloc(count, sizeof(unsigned long long)));
  REQUIRE(slots);
  int k = 0;
#define GSHMEM_TEST_P(NAME, TYPE) \
  gshmem_##NAME##_p(reinterpret_cast<TYPE *>(slots + k), (TYPE)(me * 10 + k), right); \
  ++k;
  GSHMEM_FOR_EACH_RMA_TYPE(GSHMEM_TEST_P)
#undef GSHMEM_TEST_P
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  gshmem_barrier_all();
  k = 0;
#define GSHMEM_TEST_G(NAME, TYPE)                                                               \
  {                                                                                             \
    INFO(#NAME);                                                                                \
    TYPE mine;                                                                                  \
    GSHMEM_TEST_CUDA(cudaMemcpy(&mine, slots + k, sizeof(TYPE), cudaMemcpyDeviceToHost));       \
    CHECK(mine == (TYPE)(left * 10 + k));                                                       \
    CHECK(gshmem_##NAME##_g(reinterpret_cast<const TYPE *>(slots + k), right) == (TYPE)(me * 10 + k)); \
  }                                                                                             \
  ++k;
  GSHMEM_FOR_EACH_RMA_TYPE(GSHMEM_TEST_G)
#undef GSHMEM_TEST_G
  gshmem_barrier_all();
  gshmem_free(slots);
}

TEST_CASE("local buffers for RMA: registered ranges are recorded and checked; RMA to and from them works") {
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  long *local = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&local, 64 * sizeof(long)));
  long *sym = static_cast<long *>(gshmem_calloc(64, sizeof(long)));
  REQUIRE(sym);
  CHECK(gshmemx_buffer_register(local, 32 * sizeof(long)) == GSHMEM_SUCCESS);
  CHECK(gshmemx_buffer_register(local + 32, 32 * sizeof(long)) == GSHMEM_SUCCESS);  // adjacent: fine
  CHECK(gshmemx_buffer_register(local + 16, 8) == GSHMEMX_ERROR_INVALID_VALUE);      // inside the first
  CHECK(gshmemx_buffer_register(local + 31, 16) == GSHMEMX_ERROR_INVALID_VALUE);     // across both
  CHECK(gshmemx_buffer_register(nullptr, 8) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_buffer_register(local, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_buffer_unregister(local + 1) == GSHMEMX_ERROR_INVALID_VALUE);  // not a start
  // A registered buffer as the local side of RMA: its values reach the peer.
  std::vector<long> mine(64);
  for (int i = 0; i < 64; ++i) mine[i] = me * 1000 + i;
  GSHMEM_TEST_CUDA(cudaMemcpy(local, mine.data(), sizeof(long) * 64, cudaMemcpyHostToDevice));
  gshmem_long_put(sym, local, 64, right);
  gshmem_barrier_all();
  std::vector<long> got(64);
  gshmem_long_get(got.data(), sym, 64, me);  // this PE's own copy of what the left PE put
  for (int i = 0; i < 64; ++i) CHECK(got[i] == left * 1000 + i);
  CHECK(gshmemx_buffer_unregister(local) == GSHMEM_SUCCESS);
  CHECK(gshmemx_buffer_unregister(local) == GSHMEMX_ERROR_INVALID_VALUE);  // twice
  CHECK(gshmemx_buffer_register(local + 16, 8) == GSHMEM_SUCCESS);         // free again
  gshmemx_buffer_unregister_all();
  CHECK(gshmemx_buffer_unregister(local + 32) == GSHMEMX_ERROR_INVALID_VALUE);  // all forgotten
  CHECK(gshmemx_buffer_unregister(local + 16) == GSHMEMX_ERROR_INVALID_VALUE);
  gshmem_barrier_all();
  gshmem_free(sym);
  GSHMEM_TEST_CUDA(cudaFree(local));
}

TEST_CASE("a kernel polling on the peer sees a host put's data before the flag that follows it") {
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe();
  const size_t kBytes = 1 << 20;
  unsigned char *payload = static_cast<unsigned char *>(gshmem_calloc(kBytes, 1));
  int *flag = static_cast<int *>(gshmem_calloc(1, sizeof(int)));
  unsigned long long *bad = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&bad, sizeof(*bad)));
  REQUIRE(payload);
  REQUIRE(flag);
  std::vector<unsigned char> data(kBytes, 0x5a);
  for (int round = 1; round <= 20; ++round) {
    const unsigned char expected = static_cast<unsigned char>(0x5a + round);
    std::fill(data.begin(), data.end(), expected);
    if (me == 1) {
      // The waiter runs first and spins while PE 0's host writes arrive.
      GSHMEM_TEST_CUDA(cudaMemset(bad, 0xff, sizeof(*bad)));
      wait_then_check<<<1, 1>>>(flag, round, payload, kBytes, expected, bad);
    }
    gshmemi_host_sync_all();  // does not wait for PE 1's spinning kernel
    if (me == 0) {
      gshmem_putmem_nbi(payload, data.data(), kBytes, 1);
      gshmem_fence();
      gshmem_int_p(flag, round, 1);
      CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
    }
    if (me == 1) {
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      unsigned long long b = 1;
      GSHMEM_TEST_CUDA(cudaMemcpy(&b, bad, sizeof(b), cudaMemcpyDeviceToHost));
      CHECK(b == 0);
    }
    gshmemi_host_sync_all();
  }
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaFree(bad));
  gshmem_free(flag);
  gshmem_free(payload);
}

TEST_CASE("host atomics: concurrent fetch_inc from every PE hands out distinct tickets") {
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int kPerPe = 2000;
  unsigned long long *counter = static_cast<unsigned long long *>(gshmem_calloc(1, sizeof(unsigned long long)));
  // PE 0 collects every PE's tickets: PE p's at [p * kPerPe, (p + 1) * kPerPe).
  unsigned long long *tickets =
      static_cast<unsigned long long *>(gshmem_calloc(static_cast<size_t>(n) * kPerPe, sizeof(unsigned long long)));
  REQUIRE(counter);
  REQUIRE(tickets);
  gshmem_barrier_all();
  std::vector<unsigned long long> mine(kPerPe);
  for (int i = 0; i < kPerPe; ++i) mine[i] = gshmem_ulonglong_atomic_fetch_inc(counter, 0);
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  gshmem_ulonglong_put(tickets + static_cast<size_t>(me) * kPerPe, mine.data(), kPerPe, 0);
  gshmem_barrier_all();
  CHECK(gshmem_ulonglong_atomic_fetch(counter, 0) == static_cast<unsigned long long>(n) * kPerPe);
  if (me == 0) {
    std::vector<unsigned long long> all(static_cast<size_t>(n) * kPerPe);
    GSHMEM_TEST_CUDA(cudaMemcpy(all.data(), tickets, all.size() * sizeof(all[0]), cudaMemcpyDeviceToHost));
    std::sort(all.begin(), all.end());
    size_t wrong = 0;
    for (size_t i = 0; i < all.size(); ++i) wrong += all[i] != i;
    CHECK(wrong == 0);
  }
  // Each PE's own tickets rise (its calls run in issue order).
  CHECK(std::is_sorted(mine.begin(), mine.end()));
  gshmem_barrier_all();

  // Non-fetching add from every PE, completed by quiet.
  gshmem_ulonglong_atomic_set(counter, 0, 0);
  gshmem_quiet();
  gshmem_barrier_all();
  for (int i = 0; i < kPerPe; ++i) gshmem_ulonglong_atomic_add(counter, static_cast<unsigned long long>(me + 1), 0);
  gshmem_quiet();
  gshmem_barrier_all();
  const unsigned long long expected_sum = static_cast<unsigned long long>(kPerPe) * n * (n + 1) / 2;
  CHECK(gshmem_ulonglong_atomic_fetch(counter, 0) == expected_sum);
  // The host signal_fetch reads this PE's own copy (the adds went to PE 0's).
  CHECK(gshmem_signal_fetch(reinterpret_cast<const uint64_t *>(counter)) == (me == 0 ? expected_sum : 0));
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  gshmem_barrier_all();
  gshmem_free(tickets);
  gshmem_free(counter);
}

TEST_CASE("host atomics: every operation's result, on 4- and 8-byte and floating types") {
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int right = (me + 1) % n;
  int *i32 = static_cast<int *>(gshmem_calloc(1, sizeof(int)));
  unsigned long *ul = static_cast<unsigned long *>(gshmem_calloc(1, sizeof(unsigned long)));
  float *f = static_cast<float *>(gshmem_calloc(1, sizeof(float)));
  double *d = static_cast<double *>(gshmem_calloc(1, sizeof(double)));
  REQUIRE((i32 && ul && f && d));
  gshmem_barrier_all();
  // Only this PE touches its right neighbour's objects.
  gshmem_int_atomic_set(i32, 5, right);
  CHECK(gshmem_int_atomic_fetch(i32, right) == 5);
  CHECK(gshmem_int_atomic_swap(i32, -3, right) == 5);
  CHECK(gshmem_int_atomic_compare_swap(i32, 7, 9, right) == -3);  // no match: unchanged
  CHECK(gshmem_int_atomic_compare_swap(i32, -3, 9, right) == -3);  // match
  CHECK(gshmem_int_atomic_fetch_add(i32, -10, right) == 9);
  CHECK(gshmem_int_atomic_fetch_inc(i32, right) == -1);
  gshmem_int_atomic_inc(i32, right);
  gshmem_int_atomic_add(i32, 40, right);
  CHECK(gshmem_int_g(i32, right) == 41);  // g after the non-fetching forms: they ran first, in issue order

  gshmem_ulong_atomic_set(ul, 0xf0f0ul, right);
  CHECK(gshmem_ulong_atomic_fetch_and(ul, 0xff00ul, right) == 0xf0f0ul);
  CHECK(gshmem_ulong_atomic_fetch_or(ul, 0x000ful, right) == 0xf000ul);
  CHECK(gshmem_ulong_atomic_fetch_xor(ul, 0xffffffff00000000ul, right) == 0xf00ful);
  gshmem_ulong_atomic_and(ul, 0xffff00000000f000ul, right);
  gshmem_ulong_atomic_or(ul, 1ul, right);
  gshmem_ulong_atomic_xor(ul, 0x10ul, right);
  gshmem_quiet();
  CHECK(gshmem_ulong_atomic_fetch(ul, right) == 0xffff00000000f011ul);

  gshmem_float_atomic_set(f, 1.5f, right);
  CHECK(gshmem_float_atomic_swap(f, -2.25f, right) == 1.5f);
  CHECK(gshmem_float_atomic_compare_swap(f, -2.25f, 8.0f, right) == -2.25f);
  CHECK(gshmem_float_atomic_fetch(f, right) == 8.0f);
  gshmem_double_atomic_set(d, -0.0, right);
  CHECK(gshmem_double_atomic_compare_swap(d, 0.0, 3.0, right) == 0.0);  // +0.0 is not -0.0's bit pattern
  CHECK(gshmem_double_atomic_fetch(d, right) == 0.0);
  CHECK(std::signbit(gshmem_double_atomic_fetch(d, right)));
  CHECK(gshmem_double_atomic_compare_swap(d, -0.0, 3.0, right) == 0.0);
  CHECK(gshmem_double_atomic_fetch(d, right) == 3.0);
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  gshmem_barrier_all();
  gshmem_free(d);
  gshmem_free(f);
  gshmem_free(ul);
  gshmem_free(i32);
}

TEST_CASE("host RMA and atomics reject bad arguments, naming the problem, and keep working") {
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int right = (me + 1) % n;
  long *sym = static_cast<long *>(gshmem_calloc(4, sizeof(long)));
  REQUIRE(sym);
  gshmem_barrier_all();
  long local[4] = {1, 2, 3, 4};
  gshmem_long_put(sym, local, 4, n);  // PE out of range
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_PE);
  gshmem_long_put(sym, local, 4, -1);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_PE);
  gshmem_long_put(local, local, 4, right);  // dest not symmetric
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_SYMMETRIC);
  gshmem_long_get(local, local, 4, right);  // source not symmetric
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(local[0] == 1);
  gshmem_long_put(sym, nullptr, 4, right);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmem_long_atomic_fetch_add(local, 1, right) == 0);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmem_int_atomic_fetch_add(reinterpret_cast<int *>(reinterpret_cast<char *>(sym) + 2), 1, right) == 0);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_MISALIGNED);
  CHECK(gshmem_long_atomic_fetch(sym, n + 3) == 0);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_PE);
  // Nothing was written, and good calls still work.
  gshmem_barrier_all();
  long seen[4] = {9, 9, 9, 9};
  GSHMEM_TEST_CUDA(cudaMemcpy(seen, sym, sizeof(seen), cudaMemcpyDeviceToHost));
  CHECK((seen[0] == 0 && seen[1] == 0 && seen[2] == 0 && seen[3] == 0));
  gshmem_long_put(sym, local, 4, right);
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  CHECK(gshmem_long_atomic_fetch_add(sym + 3, 10, right) == 4);
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaMemcpy(seen, sym, sizeof(seen), cudaMemcpyDeviceToHost));
  CHECK((seen[0] == 1 && seen[1] == 2 && seen[2] == 3 && seen[3] == 14));
  gshmem_barrier_all();
  gshmem_free(sym);
  gshmem_finalize();
}
