// CPU tests of the remote-update layer: the arithmetic of every extension,
// the compare-and-swap loops run by host threads, the bulk-atomic rules and
// the order/scope table. No GPU needed.
#include "catch.hpp"

#include <gshmem/detail/update_amo.h>
#include <gshmem/detail/update_arith.h>
#include <gshmem/detail/update_bulk.h>
#include <gshmem/detail/update_order.h>
#include <gshmem/detail/update_strided.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <thread>
#include <type_traits>
#include <vector>

using gshmem::memory_order;
using gshmem::thread_scope;
namespace d = gshmem::detail;

namespace {

template <class T> bool bits_equal(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }
template <class T> bool is_neg_zero(T x) { return x == T(0) && std::signbit(x); }
template <class T> bool is_pos_zero(T x) { return x == T(0) && !std::signbit(x); }

constexpr auto kRlx = memory_order::relaxed;
constexpr auto kSys = thread_scope::system;

}  // namespace

TEMPLATE_TEST_CASE("floating max/min propagate NaN and order signed zero", "[update][arith]", float,
                   double) {
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  const T pz = T(0), nz = -T(0);

  // Ordinary values and infinities.
  CHECK(d::combine_max(T(1), T(2)) == T(2));
  CHECK(d::combine_max(T(2), T(1)) == T(2));
  CHECK(d::combine_min(T(1), T(2)) == T(1));
  CHECK(d::combine_max(-inf, T(-5)) == T(-5));
  CHECK(d::combine_max(T(5), inf) == inf);
  CHECK(d::combine_min(T(5), -inf) == -inf);
  CHECK(d::combine_min(inf, T(7)) == T(7));

  // NaN propagates (numpy.maximum / IEEE 754-2019 maximum): a NaN operand is
  // stored, a NaN target stays.
  CHECK(std::isnan(d::combine_max(T(3), nan)));
  CHECK(std::isnan(d::combine_max(nan, T(3))));
  CHECK(std::isnan(d::combine_min(T(3), nan)));
  CHECK(std::isnan(d::combine_min(nan, T(-3))));
  CHECK(std::isnan(d::combine_max(nan, -inf)));
  // Without NaN, max/min agree with the C library (and with nanmax/nanmin).
  for (T a : {T(-2), T(0.5), inf, -inf, T(7)})
    for (T b : {T(-2), T(0.5), inf, -inf, T(7)}) {
      CHECK(d::combine_max(a, b) == std::fmax(a, b));
      CHECK(d::combine_min(a, b) == std::fmin(a, b));
      CHECK(d::combine_max(a, b) == d::combine_nanmax(a, b));
      CHECK(d::combine_min(a, b) == d::combine_nanmin(a, b));
    }

  // Signed zero: max prefers +0, min prefers -0, in either argument order.
  CHECK(is_pos_zero(d::combine_max(nz, pz)));
  CHECK(is_pos_zero(d::combine_max(pz, nz)));
  CHECK(is_neg_zero(d::combine_min(nz, pz)));
  CHECK(is_neg_zero(d::combine_min(pz, nz)));
  CHECK(is_neg_zero(d::combine_max(nz, nz)));
  CHECK(is_pos_zero(d::combine_min(pz, pz)));
}

TEST_CASE("integer nanmax/nanmin equal max/min", "[update][arith]") {
  for (long long a : {LLONG_MIN, -5LL, 0LL, 7LL, LLONG_MAX})
    for (long long b : {LLONG_MIN, -5LL, 0LL, 7LL, LLONG_MAX}) {
      CHECK(d::combine_nanmax(a, b) == d::combine_max(a, b));
      CHECK(d::combine_nanmin(a, b) == d::combine_min(a, b));
    }
  unsigned int u = 3;
  CHECK(d::addr_fetch_nanmax<kRlx, kSys>(&u, 9u) == 3u);
  CHECK(u == 9u);
  CHECK(d::addr_fetch_nanmin<kRlx, kSys>(&u, 4u) == 9u);
  CHECK(u == 4u);
}

TEMPLATE_TEST_CASE("float and double atomic add and sub", "[update][arith]", float, double) {
  using T = TestType;
  T x = T(1.5);
  CHECK(d::addr_fetch_add<kRlx, kSys>(&x, T(0.25)) == T(1.5));
  CHECK(x == T(1.75));
  CHECK(d::addr_fetch_sub<memory_order::acq_rel, kSys>(&x, T(2)) == T(1.75));
  CHECK(x == T(-0.25));
  d::addr_add<memory_order::release, kSys>(&x, T(0.25));
  CHECK(is_pos_zero(x));
  // Under contention: every add lands (values exact in binary).
  T sum = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int k = 0; k < 10000; ++k) d::addr_fetch_add<kRlx, kSys>(&sum, T(0.5));
    });
  for (auto &th : threads) th.join();
  CHECK(sum == T(20000));
}

TEMPLATE_TEST_CASE("nanmax/nanmin treat NaN as a missing value", "[update][arith]", float, double) {
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T a = T(4.25);
  CHECK(d::combine_nanmax(a, nan) == a);       // nanmax(a, NaN) leaves a
  CHECK(d::combine_nanmax(nan, T(9)) == T(9)); // nanmax(NaN, n) stores n
  CHECK(d::combine_nanmin(a, nan) == a);
  CHECK(d::combine_nanmin(nan, T(-9)) == T(-9));
  CHECK(std::isnan(d::combine_nanmin(nan, nan)));
  CHECK(d::combine_nanmax(a, T(5)) == T(5));
  CHECK(d::combine_nanmin(a, T(5)) == a);
  CHECK(is_pos_zero(d::combine_nanmax(-T(0), T(0))));
  CHECK(is_neg_zero(d::combine_nanmin(T(0), -T(0))));
}

TEST_CASE("sub wraps modulo 2^N", "[update][arith]") {
  CHECK(d::combine_sub<uint32_t>(0u, 1u) == UINT32_MAX);
  CHECK(d::combine_sub<uint64_t>(5u, 7u) == UINT64_MAX - 1);
  CHECK(d::combine_sub<int32_t>(INT32_MIN, 1) == INT32_MAX);
  CHECK(d::combine_sub<int64_t>(INT64_MIN, 1) == INT64_MAX);
  CHECK(d::combine_sub<double>(1.5, 2.0) == -0.5);

  // Through the memory layer too (host atomics).
  unsigned long long u = 2;
  CHECK(d::addr_fetch_sub<kRlx, kSys>(&u, 3ull) == 2ull);
  CHECK(u == ~0ull);
  unsigned int w = 0;
  d::addr_fetch_sub<kRlx, kSys>(&w, 1u);
  CHECK(w == UINT32_MAX);
  float f = 1.0f;
  CHECK(d::addr_fetch_sub<kRlx, kSys>(&f, 0.25f) == 1.0f);
  CHECK(f == 0.75f);
}

TEMPLATE_TEST_CASE("compare-and-swap loops on memory: NaN, zeros, no write when unchanged",
                   "[update][cas]", float, double) {
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  T x = nan;
  CHECK(std::isnan(d::addr_fetch_nanmax<kRlx, kSys>(&x, T(2))));
  CHECK(x == T(2));
  // A NaN operand leaves the target bit-for-bit (nanmax), or is stored (max).
  T before = x;
  CHECK(d::addr_fetch_nanmax<kRlx, kSys>(&x, nan) == T(2));
  CHECK(bits_equal(x, before));
  CHECK(d::addr_fetch_max<kRlx, kSys>(&x, nan) == T(2));
  CHECK(std::isnan(x));
  T stays = nan;
  CHECK(std::isnan(d::addr_fetch_max<kRlx, kSys>(&stays, T(5))));
  CHECK(std::isnan(stays));
  T z = -T(0);
  d::addr_fetch_max<kRlx, kSys>(&z, T(0));
  CHECK(is_pos_zero(z));
  d::addr_fetch_min<kRlx, kSys>(&z, -T(0));
  CHECK(is_neg_zero(z));
  T m = T(1);
  d::addr_fetch_nanmin<kRlx, kSys>(&m, nan);
  CHECK(m == T(1));
  T n = nan;
  d::addr_fetch_nanmin<kRlx, kSys>(&n, T(-1));
  CHECK(n == T(-1));
  T i = -std::numeric_limits<T>::infinity();
  d::addr_fetch_max<memory_order::seq_cst, kSys>(&i, std::numeric_limits<T>::infinity());
  CHECK(i == std::numeric_limits<T>::infinity());
}

TEST_CASE("float max by compare-and-swap loses no update under contention", "[update][cas]") {
  constexpr int kThreads = 8, kPerThread = 20000;
  float target = -std::numeric_limits<float>::infinity();
  double dmin = std::numeric_limits<double>::infinity();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < kPerThread; ++k) {
        float v = float(k * kThreads + t);  // every value distinct; largest from the last thread
        d::addr_fetch_max<kRlx, kSys>(&target, v);
        d::addr_fetch_min<kRlx, kSys>(&dmin, -double(v));
        if (k % 97 == 0) d::addr_fetch_nanmax<kRlx, kSys>(&target, std::numeric_limits<float>::quiet_NaN());
      }
    });
  for (auto& th : threads) th.join();
  CHECK(target == float((kPerThread - 1) * kThreads + kThreads - 1));
  CHECK(dmin == -double((kPerThread - 1) * kThreads + kThreads - 1));
}

// ------------------------------------------------------------------- bulk

namespace {
template <class T>
struct bulk_fixture {
  std::vector<T> dest;
  std::vector<T> fetched;
  explicit bulk_fixture(size_t n, size_t results, T sentinel) : dest(n), fetched(results, sentinel) {
    for (size_t i = 0; i < n; ++i) dest[i] = T(100 + i);
  }
};

// Runs bulk_apply as a group of `size` ranks would, rank by rank.
template <class T, class Op>
void run_bulk(T* dest, size_t dest_nelems, gshmemx_bulk_index_t index, const bool* mask, size_t n,
              unsigned flags, T* fetched, const T* skip_result, Op op, unsigned size) {
  for (unsigned r = 0; r < size; ++r)
    d::bulk_apply(dest, dest_nelems, index, mask, n, flags, fetched, skip_result, op, d::group_explicit{r, size});
}
}  // namespace

TEST_CASE("bulk element rules: mask, bounds, strides", "[update][bulk]") {
  size_t t = 0;
  const size_t idx[] = {0, 3, 9, 10, SIZE_MAX};
  gshmemx_bulk_index_t by_index{idx, 0, 0};
  CHECK(d::bulk_element(0, by_index, nullptr, 10, 0, &t) == d::bulk_verdict::apply);
  CHECK(t == 0);
  CHECK(d::bulk_element(2, by_index, nullptr, 10, 0, &t) == d::bulk_verdict::apply);
  CHECK(t == 9);
  CHECK(d::bulk_element(3, by_index, nullptr, 10, 0, &t) == d::bulk_verdict::out_of_bounds);
  CHECK(d::bulk_element(4, by_index, nullptr, 10, 0, &t) == d::bulk_verdict::out_of_bounds);
  CHECK(d::bulk_element(3, by_index, nullptr, 10, GSHMEMX_BULK_NO_BOUNDS_CHECK, &t) == d::bulk_verdict::apply);
  CHECK(t == 10);
  const bool mask[] = {true, false, true, true, true};
  CHECK(d::bulk_element(1, by_index, mask, 10, 0, &t) == d::bulk_verdict::masked);
  // Mask wins over bounds: a masked element is never examined further.
  const bool mask2[] = {true, true, true, false, true};
  CHECK(d::bulk_element(3, by_index, mask2, 10, 0, &t) == d::bulk_verdict::masked);

  gshmemx_bulk_index_t strided{nullptr, 8, -3};  // 8, 5, 2, -1, ...
  CHECK(d::bulk_element(0, strided, nullptr, 10, 0, &t) == d::bulk_verdict::apply);
  CHECK(t == 8);
  CHECK(d::bulk_element(2, strided, nullptr, 10, 0, &t) == d::bulk_verdict::apply);
  CHECK(t == 2);
  CHECK(d::bulk_element(3, strided, nullptr, 10, 0, &t) == d::bulk_verdict::out_of_bounds);
  gshmemx_bulk_index_t up{nullptr, 1, 4};  // 1, 5, 9, 13
  CHECK(d::bulk_element(2, up, nullptr, 10, 0, &t) == d::bulk_verdict::apply);
  CHECK(d::bulk_element(3, up, nullptr, 10, 0, &t) == d::bulk_verdict::out_of_bounds);
}

TEST_CASE("bulk strided index: products and sums past 64 bits are out of bounds, never wrapped",
          "[update][bulk]") {
  size_t t = 12345;
  // stride 2^62: element 4 would be 2^64, which wraps to 0 in 64-bit arithmetic.
  gshmemx_bulk_index_t huge{nullptr, 0, (ptrdiff_t)1 << 62};
  CHECK(d::bulk_element(0, huge, nullptr, 10, 0, &t) == d::bulk_verdict::apply);
  CHECK(t == 0);
  for (size_t i : {1, 2, 3, 4, 5, 8, 1000})
    CHECK(d::bulk_element(i, huge, nullptr, 10, 0, &t) == d::bulk_verdict::out_of_bounds);
  // Negative strides: -2^62 * 4 wraps to 0 as well.
  gshmemx_bulk_index_t neg{nullptr, 3, -((ptrdiff_t)1 << 62)};
  CHECK(d::bulk_element(0, neg, nullptr, 10, 0, &t) == d::bulk_verdict::apply);
  CHECK(t == 3);
  for (size_t i : {1, 4, 8}) CHECK(d::bulk_element(i, neg, nullptr, 10, 0, &t) == d::bulk_verdict::out_of_bounds);
  // A base near 2^64 plus a small step wraps past zero.
  gshmemx_bulk_index_t near_top{nullptr, SIZE_MAX - 1, 1};
  CHECK(d::bulk_element(2, near_top, nullptr, 10, 0, &t) == d::bulk_verdict::out_of_bounds);
  // PTRDIFF_MIN as a stride (its magnitude does not fit a signed 64-bit value).
  gshmemx_bulk_index_t min_stride{nullptr, 0, PTRDIFF_MIN};
  CHECK(d::bulk_element(1, min_stride, nullptr, 10, 0, &t) == d::bulk_verdict::out_of_bounds);
  CHECK(d::bulk_element(2, min_stride, nullptr, 10, 0, &t) == d::bulk_verdict::out_of_bounds);

  // Through bulk_apply: the out-of-bounds elements change nothing (element 0
  // is updated once, by element 0 alone) and CAS results are the expected values.
  std::vector<uint64_t> dest(10, 100);
  std::vector<uint64_t> fetched(6, 0xdead);
  const uint64_t conds[6] = {100, 100, 100, 100, 100, 100};
  auto cas = [&](uint64_t *p, size_t i) {
    uint64_t e = conds[i];
    d::addr_compare_exchange<kRlx, kSys>(p, e, 7 + i);
    return e;
  };
  run_bulk(dest.data(), dest.size(), huge, nullptr, 6, 0, fetched.data(), conds, cas, 3);
  CHECK(dest[0] == 7);
  for (size_t i = 1; i < 10; ++i) CHECK(dest[i] == 100);
  CHECK(fetched[0] == 100);
  for (size_t i = 1; i < 6; ++i) CHECK(fetched[i] == conds[i]);
}

TEST_CASE("bulk compare-and-swap: results, skipped elements return expected", "[update][bulk]") {
  for (unsigned group : {1u, 3u, 32u}) {
    bulk_fixture<uint64_t> f(16, 6, 0xdeadull);
    const size_t idx[] = {1, 2, 20, 4, 5, 6};
    const uint64_t conds[] = {101, 999, 7, 104, 105, 106};   // element 1 mismatches
    const uint64_t values[] = {1, 2, 3, 4, 5, 6};
    const bool mask[] = {true, true, true, false, true, true};  // element 3 masked
    auto cas = [&](uint64_t* p, size_t i) {
      uint64_t e = conds[i];
      d::addr_compare_exchange<kRlx, kSys>(p, e, values[i]);
      return e;
    };
    run_bulk(f.dest.data(), f.dest.size(), gshmemx_bulk_index_t{idx, 0, 0}, mask, 6, 0, f.fetched.data(), conds,
             cas, group);
    CHECK(f.dest[1] == 1);                 // swapped
    CHECK(f.fetched[0] == 101);            // old value
    CHECK(f.dest[2] == 102);               // condition failed
    CHECK(f.fetched[1] == 102);            // old value, != expected
    CHECK(f.fetched[2] == 7);              // out of bounds: result = expected
    CHECK(f.dest[4] == 104);               // masked: untouched
    CHECK(f.fetched[3] == 104);            // masked: result = expected (conds[3])
    CHECK(f.dest[5] == 5);
    CHECK(f.dest[6] == 6);
    for (size_t i = 7; i < 16; ++i) CHECK(f.dest[i] == 100 + i);  // nothing else written
  }
}

TEST_CASE("bulk fetch_add: skipped results left unwritten, duplicates all applied", "[update][bulk]") {
  bulk_fixture<unsigned int> f(8, 7, 0xabcdu);
  const size_t idx[] = {0, 0, 0, 7, 8, 3, 3};
  const unsigned int values[] = {1, 2, 4, 10, 50, 100, 1000};
  const bool mask[] = {true, true, true, true, true, false, true};
  auto add = [&](unsigned int* p, size_t i) { return d::addr_fetch_add<kRlx, kSys>(p, values[i]); };
  run_bulk(f.dest.data(), f.dest.size(), gshmemx_bulk_index_t{idx, 0, 0}, mask, 7, 0, f.fetched.data(),
           (const unsigned int*)nullptr, add, 4);
  CHECK(f.dest[0] == 100 + 7);
  CHECK(f.dest[7] == 107 + 10);
  CHECK(f.dest[3] == 103 + 1000);
  CHECK(f.fetched[4] == 0xabcdu);  // out of bounds: unwritten
  CHECK(f.fetched[5] == 0xabcdu);  // masked: unwritten
  CHECK(f.fetched[6] == 103);
  // The three adds to element 0 saw three distinct old values.
  std::vector<unsigned> olds{f.fetched[0], f.fetched[1], f.fetched[2]};
  std::sort(olds.begin(), olds.end());
  CHECK(olds.front() == 100);
  CHECK(olds.back() <= 106);
}

TEST_CASE("bulk with bounds checking off applies every element", "[update][bulk]") {
  bulk_fixture<int64_t> f(12, 4, -1);
  auto mx = [&](int64_t* p, size_t) { return d::addr_fetch_max<kRlx, kSys>(p, int64_t(1000)); };
  // Claim only 2 elements but switch bounds checks off: targets 1, 4, 7, 10 all change.
  run_bulk(f.dest.data(), size_t(2), gshmemx_bulk_index_t{nullptr, 1, 3}, nullptr, 4, GSHMEMX_BULK_NO_BOUNDS_CHECK,
           f.fetched.data(), (const int64_t*)nullptr, mx, 2);
  CHECK(f.dest[1] == 1000);
  CHECK(f.dest[10] == 1000);
  CHECK(f.fetched[3] == 110);
  // And with the check on, only target 1 is in [0, 2).
  bulk_fixture<int64_t> g(12, 4, -1);
  run_bulk(g.dest.data(), size_t(2), gshmemx_bulk_index_t{nullptr, 1, 3}, nullptr, 4, 0, g.fetched.data(),
           (const int64_t*)nullptr, mx, 2);
  CHECK(g.dest[1] == 1000);
  CHECK(g.dest[4] == 104);
  CHECK(g.fetched[1] == -1);
}

// ---------------------------------------------------------- order / scope

// The byte copy under put/get/putmem/getmem, as one thread runs it (edges
// in aligned pieces, copy_edge) and as a group of 3, 32 or 1024 ranks does
// (rank by rank): every destination and source offset modulo 16 (1024
// ranks: every fifth), every length up to 70 and a few longer ones. The
// copy must equal the source and leave the bytes around it alone. In a
// group of 1024, the ranks of a warp (32) whose first rank is at or past the
// n-th byte leave at once, so a bound that let a rank with a unit or an edge
// byte leave shows up here.
TEST_CASE("byte copy: every alignment and length, one thread and groups", "[update][copy]") {
  constexpr size_t kPad = 32;
  const size_t lengths_long[] = {127, 128, 129, 1000, 4099};
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 70; ++n) lengths.push_back(n);
  lengths.insert(lengths.end(), std::begin(lengths_long), std::end(lengths_long));
  alignas(16) static unsigned char src[kPad + 4099 + kPad + 16];
  alignas(16) static unsigned char dst[kPad + 4099 + kPad + 16];
  for (size_t i = 0; i < sizeof src; ++i) src[i] = (unsigned char)(i * 7 + 3);
  size_t failures = 0;
  for (unsigned size : {1u, 3u, 32u, 1024u}) {
    const size_t offset_step = size == 1024u ? 5 : 1;
    for (size_t doff = 0; doff < 16; doff += offset_step) {
      for (size_t soff = 0; soff < 16; soff += offset_step) {
        for (size_t n : lengths) {
          std::memset(dst, 0xEE, sizeof dst);
          if (size == 1) {
            d::copy_bytes<true, true>(dst + kPad + doff, src + kPad + soff, n, d::group_thread{});
          } else {
            for (unsigned r = 0; r < size; ++r)
              d::copy_bytes<true, true>(dst + kPad + doff, src + kPad + soff, n, d::group_explicit{r, size});
          }
          bool ok = std::memcmp(dst + kPad + doff, src + kPad + soff, n) == 0;
          for (size_t i = 0; i < kPad + doff; ++i) ok = ok && dst[i] == 0xEE;
          for (size_t i = kPad + doff + n; i < sizeof dst; ++i) ok = ok && dst[i] == 0xEE;
          if (!ok && ++failures <= 5)
            FAIL_CHECK("group of " << size << ", dst offset " << doff << ", src offset " << soff << ", " << n
                                   << " bytes: copy differs or bytes outside it changed");
        }
      }
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("byte copy edges: the widest piece the address, the length and both sides allow", "[update][copy]") {
  // (address, bytes left, largest unit both sides allow) -> piece width
  CHECK(d::edge_piece(0x1000, 15, 16) == 8);
  CHECK(d::edge_piece(0x1001, 15, 16) == 1);
  CHECK(d::edge_piece(0x1002, 14, 16) == 2);
  CHECK(d::edge_piece(0x1004, 12, 16) == 4);
  CHECK(d::edge_piece(0x1000, 7, 16) == 4);
  CHECK(d::edge_piece(0x1000, 8, 4) == 4);  // the sides agree only modulo 4
  CHECK(d::edge_piece(0x1000, 8, 1) == 1);
  CHECK(d::edge_piece(0x1000, 0, 16) == 0);
}

TEST_CASE("order and scope validation table", "[update][order]") {
  const int orders[] = {GSHMEMX_ORDER_RELAXED, GSHMEMX_ORDER_CONSUME, GSHMEMX_ORDER_ACQUIRE,
                        GSHMEMX_ORDER_RELEASE, GSHMEMX_ORDER_ACQ_REL, GSHMEMX_ORDER_SEQ_CST};
  for (int scope = GSHMEMX_SCOPE_THREAD; scope <= GSHMEMX_SCOPE_SYSTEM; ++scope) {
    for (int o : orders) {
      bool load_ok = o != GSHMEMX_ORDER_RELEASE && o != GSHMEMX_ORDER_ACQ_REL;
      bool store_ok = o == GSHMEMX_ORDER_RELAXED || o == GSHMEMX_ORDER_RELEASE || o == GSHMEMX_ORDER_SEQ_CST;
      CHECK((gshmemx_validate_order(GSHMEMX_OP_LOAD, o, scope) == GSHMEM_SUCCESS) == load_ok);
      CHECK((gshmemx_validate_order(GSHMEMX_OP_STORE, o, scope) == GSHMEM_SUCCESS) == store_ok);
      CHECK((gshmemx_validate_order(GSHMEMX_OP_FENCE, o, scope) == GSHMEM_SUCCESS) == (o != GSHMEMX_ORDER_RELAXED));
      for (int op = GSHMEMX_OP_EXCHANGE; op <= GSHMEMX_OP_FETCH_NANMIN; ++op)
        CHECK(gshmemx_validate_order(op, o, scope) == GSHMEM_SUCCESS);
    }
  }
  CHECK(gshmemx_validate_order(GSHMEMX_OP_LOAD, GSHMEMX_ORDER_RELEASE, GSHMEMX_SCOPE_SYSTEM) ==
        GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(std::strstr(gshmemx_validate_order_message(GSHMEMX_OP_LOAD, GSHMEMX_ORDER_RELEASE, GSHMEMX_SCOPE_SYSTEM),
                    "load") != nullptr);
  CHECK(std::strstr(gshmemx_validate_order_message(GSHMEMX_OP_STORE, GSHMEMX_ORDER_ACQUIRE, GSHMEMX_SCOPE_BLOCK),
                    "store") != nullptr);
  CHECK(gshmemx_validate_order_message(GSHMEMX_OP_STORE, GSHMEMX_ORDER_RELEASE, GSHMEMX_SCOPE_BLOCK) == nullptr);
  // Out-of-range codes.
  CHECK(gshmemx_validate_order(GSHMEMX_OP_COUNT, GSHMEMX_ORDER_SEQ_CST, GSHMEMX_SCOPE_SYSTEM) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_validate_order(-1, GSHMEMX_ORDER_SEQ_CST, GSHMEMX_SCOPE_SYSTEM) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_validate_order(GSHMEMX_OP_FETCH_ADD, 6, GSHMEMX_SCOPE_SYSTEM) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_validate_order(GSHMEMX_OP_FETCH_ADD, GSHMEMX_ORDER_RELAXED, 4) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_validate_order(GSHMEMX_OP_FETCH_ADD, -1, GSHMEMX_SCOPE_SYSTEM) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_validate_order_message(GSHMEMX_OP_FETCH_ADD, GSHMEMX_ORDER_RELAXED, 4) != nullptr);
  // The compile-time table agrees (these are the static_assert conditions).
  static_assert(!gshmem::detail::op_order_valid(GSHMEMX_OP_LOAD, GSHMEMX_ORDER_RELEASE), "release load");
  static_assert(!gshmem::detail::op_order_valid(GSHMEMX_OP_STORE, GSHMEMX_ORDER_ACQUIRE), "acquire store");
}

// ----------------------------------------- orders kept when nothing changes
//
// A compare-and-swap-loop operation whose result equals the value found
// (max of a smaller value, say) must still perform its release as a write
// when its order has a release part; a relaxed or acquire one may return
// after its load. Observed through page protection: the target lives on a
// read-only page, so any write (a locked compare-and-swap even of equal
// bits) faults. Each case runs in a child process.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {
// 0: returned normally; SIGSEGV/SIGBUS: it wrote.
template <memory_order O>
int run_max_on_read_only_page() {
  const long page = sysconf(_SC_PAGESIZE);
  void *mem = mmap(nullptr, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mem != MAP_FAILED);
  double *x = static_cast<double *>(mem);
  *x = 10.0;
  REQUIRE(mprotect(mem, (size_t)page, PROT_READ) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGSEGV, SIG_DFL);  // the test framework's handler would report it as a failure
    std::signal(SIGBUS, SIG_DFL);
    const double old = d::addr_fetch_max<O, kSys>(x, 3.0);  // max(10, 3) = 10: no change
    _exit(old == 10.0 ? 0 : 3);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  munmap(mem, (size_t)page);
  if (WIFSIGNALED(status)) return WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) == 0 ? 0 : 100 + WEXITSTATUS(status) : -1;
}
}  // namespace

TEST_CASE("a float max that changes nothing keeps its release as a write", "[update][cas][order]") {
  CHECK(run_max_on_read_only_page<memory_order::relaxed>() == 0);
  CHECK(run_max_on_read_only_page<memory_order::acquire>() == 0);
  const int release = run_max_on_read_only_page<memory_order::release>();
  CHECK((release == SIGSEGV || release == SIGBUS));
  const int acq_rel = run_max_on_read_only_page<memory_order::acq_rel>();
  CHECK((acq_rel == SIGSEGV || acq_rel == SIGBUS));
  const int seq_cst = run_max_on_read_only_page<memory_order::seq_cst>();
  CHECK((seq_cst == SIGSEGV || seq_cst == SIGBUS));
}

// ------------------------------------------------------- 16-byte objects

TEST_CASE("16-byte load, store, exchange, compare-exchange are indivisible among host threads",
          "[update][wide]") {
  struct alignas(16) pair {
    unsigned long long a, b;
  };
  pair cell{0, 0};
  std::atomic<bool> done{false};
  std::atomic<unsigned long long> torn{0}, loads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r)
    readers.emplace_back([&] {
      unsigned long long bad = 0, n = 0;
      while (!done.load(std::memory_order_relaxed)) {
        const pair v = d::load_object<memory_order::acquire, kSys>(&cell);
        bad += v.a != v.b;
        ++n;
      }
      torn += bad;
      loads += n;
    });
  for (unsigned long long k = 1; k <= 200000; ++k) {
    switch (k % 3) {
      case 0: d::store_object<memory_order::release, kSys>(&cell, pair{k, k}); break;
      case 1: {
        const pair old = d::addr_exchange<memory_order::acq_rel, kSys>(&cell, pair{k, k});
        CHECK(old.a == old.b);
        break;
      }
      default: {
        pair expected = d::load_object<memory_order::relaxed, kSys>(&cell);
        CHECK(d::addr_compare_exchange<memory_order::seq_cst, kSys>(&cell, expected, pair{k, k}));
      }
    }
  }
  done = true;
  for (auto &th : readers) th.join();
  CHECK(torn.load() == 0);
  CHECK(loads.load() > 0);
  const pair last = d::load_object<memory_order::seq_cst, kSys>(&cell);
  CHECK(last.a == 200000);
  CHECK(last.b == 200000);
  // A failed compare-exchange reports the value found, whole.
  pair wrong{1, 2};
  CHECK_FALSE(d::addr_compare_exchange<memory_order::relaxed, kSys>(&cell, wrong, pair{9, 9}));
  CHECK(wrong.a == 200000);
  CHECK(wrong.b == 200000);
}

// Strided copies (iput / iget) through the same element loop the device
// runs, on host memory: every element size, strides in elements (odd,
// zero, negative, unit), nelems 0..large, one thread and groups played rank
// by rank. Reference: the element-wise definition, dest[i * dst] =
// source[i * sst]; every byte the copy must not touch is checked unchanged.
namespace {
template <size_t Bytes>
size_t strided_case(ptrdiff_t dst, ptrdiff_t sst, size_t nelems, unsigned group) {
  constexpr ptrdiff_t kRoom = 7 * 300 + 8;  // elements either side of the base (stride 7, 300 elements)
  std::vector<unsigned char> src((2 * kRoom + 1) * Bytes + 16), out(src.size()), want(src.size());
  for (size_t i = 0; i < src.size(); ++i) src[i] = (unsigned char)(i * 31 + 7);
  // 16-byte aligned bases, the element bases in the middle of the buffers.
  auto base = [](std::vector<unsigned char>& v) {
    unsigned char* p = v.data() + kRoom * Bytes;
    return p + ((16 - (reinterpret_cast<std::uintptr_t>(p) & 15)) & 15);
  };
  std::memset(out.data(), 0xEE, out.size());
  std::memset(want.data(), 0xEE, want.size());
  unsigned char* const s = base(src);
  for (size_t i = 0; i < nelems; ++i)
    std::memcpy(base(want) + (ptrdiff_t)i * dst * (ptrdiff_t)Bytes, s + (ptrdiff_t)i * sst * (ptrdiff_t)Bytes, Bytes);
  for (unsigned r = 0; r < group; ++r)
    d::strided_copy<false, false, Bytes>(base(out), s, dst, sst, nelems, r, group);
  return std::memcmp(out.data(), want.data(), out.size()) == 0 ? 0 : 1;
}

template <size_t Bytes>
size_t strided_all_cases() {
  size_t failures = 0;
  const ptrdiff_t strides[] = {1, 2, 3, 7, 0, -1, -3};
  const size_t counts[] = {0, 1, 2, 3, 31, 33, 300};
  for (unsigned group : {1u, 3u, 32u})
    for (ptrdiff_t dst : strides)
      for (ptrdiff_t sst : strides)
        for (size_t n : counts) {
          if (dst == 0 && n > 1 && group > 1) continue;  // several ranks on one element: no defined winner
          if (strided_case<Bytes>(dst, sst, n, group) != 0 && ++failures <= 5)
            FAIL_CHECK(Bytes << "-byte elements, dst stride " << dst << ", src stride " << sst << ", " << n
                             << " elements, group of " << group << ": differs from dest[i*dst] = source[i*sst]");
        }
  return failures;
}
}  // namespace

TEST_CASE("strided copy: every element size, odd, zero and negative strides, groups", "[update][strided]") {
  CHECK(strided_all_cases<1>() == 0);
  CHECK(strided_all_cases<2>() == 0);
  CHECK(strided_all_cases<4>() == 0);
  CHECK(strided_all_cases<8>() == 0);
  CHECK(strided_all_cases<16>() == 0);
}

TEST_CASE("strided copy: a 16-byte element moves as two 8-byte units", "[update][strided]") {
  static_assert(std::is_same<d::strided_unit<16>::type, unsigned long long>::value, "16 bytes: 8-byte units");
  static_assert(d::strided_unit<16>::per_element == 2, "two per element");
  static_assert(d::strided_unit<4>::per_element == 1 && sizeof(d::strided_unit<4>::type) == 4, "4 bytes: one unit");
  static_assert(sizeof(d::strided_unit<1>::type) == 1, "1 byte: one unit");
}

TEST_CASE("strided span: the bytes a strided array touches, overflow refused", "[update][strided]") {
  long long lowest = 1;
  unsigned long long length = 1;
  CHECK(d::strided_span(0, 5, 4, &lowest, &length));
  CHECK((lowest == 0 && length == 0));
  CHECK(d::strided_span(1, 1000, 8, &lowest, &length));
  CHECK((lowest == 0 && length == 8));
  CHECK(d::strided_span(10, 3, 4, &lowest, &length));  // elements at 0, 12, ..., 108
  CHECK((lowest == 0 && length == 112));
  CHECK(d::strided_span(10, -3, 4, &lowest, &length));  // elements at 0, -12, ..., -108
  CHECK((lowest == -108 && length == 112));
  CHECK(d::strided_span(1000, 0, 16, &lowest, &length));  // every element on the first
  CHECK((lowest == 0 && length == 16));
  CHECK_FALSE(d::strided_span((size_t)1 << 40, (ptrdiff_t)1 << 30, 8, &lowest, &length));
  CHECK_FALSE(d::strided_span(3, PTRDIFF_MIN, 1, &lowest, &length));
  CHECK_FALSE(d::strided_span(SIZE_MAX, 1, 1, &lowest, &length));
}
