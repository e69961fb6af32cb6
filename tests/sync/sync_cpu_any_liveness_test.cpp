// _any liveness on the host build of the device algorithms: a series of
// calls by one caller returns every element that stays satisfied, whatever
// other arrays and callers exist (OpenSHMEM 1.5, wait_until_any/test_any).
// Adversarial cases: arrays that share a cursor slot, many arrays at the
// heap's 256-byte spacing, alternating callers on one array, every form.
#include <gshmem/sync.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "catch.hpp"

namespace {

constexpr size_t kNone = SIZE_MAX;

// Arrays of 4 longs, 256 bytes apart, in one buffer (like heap allocations).
struct spaced_arrays {
  std::vector<long> storage;
  explicit spaced_arrays(size_t count) : storage(count * 32, 0) {}
  long *at(size_t k) { return storage.data() + k * 32; }
};

// A reading as if another caller had taken the slot.
void any_cursor_entry_of_another(gshmem::detail::any_cursor_entry &e) {
  e.tag ^= 2;
  e.next &= ~gshmem::detail::any_cursor::kInOrder;
}

}  // namespace

TEST_CASE("_any: alternating calls on two arrays starve no element", "[sync][cpu][any]") {
  // X[0], X[1] stay satisfied; only Y[3] is. Alternate test_any(X), test_any(Y):
  // X must return element 1 as well as element 0.
  spaced_arrays arrays(2);
  long *x = arrays.at(0), *y = arrays.at(1);
  x[0] = x[1] = 1;
  y[3] = 1;
  std::set<size_t> from_x;
  for (int call = 0; call < 200; ++call) {
    from_x.insert(gshmem::test_any(x, 4, nullptr, GSHMEM_CMP_EQ, 1L));
    CHECK(gshmem::test_any(y, 4, nullptr, GSHMEM_CMP_EQ, 1L) == 3);
  }
  CHECK(from_x == std::set<size_t>{0, 1});
}

TEST_CASE("_any: many arrays at 256-byte spacing, visited round-robin, all rotate", "[sync][cpu][any]") {
  // 3000 arrays: far more than the cursor table has slots, so arrays share
  // slots; each call on one array is separated by calls on all others.
  const size_t arrays_n = 3000;
  spaced_arrays arrays(arrays_n);
  for (size_t k = 0; k < arrays_n; ++k) {
    arrays.at(k)[k % 4] = 7;
    arrays.at(k)[(k + 2) % 4] = 7;
  }
  std::vector<std::set<size_t>> seen(arrays_n);
  const int kRounds = 64;  // a slot taken by another array gives a random start: P(miss) = 2^-64
  for (int round = 0; round < kRounds; ++round) {
    for (size_t k = 0; k < arrays_n; ++k) {
      const int form = (int)((k + round) % 4);
      long *a = arrays.at(k);
      const long values[4] = {7, 7, 7, 7};
      size_t i = form == 0   ? gshmem::test_any(a, 4, nullptr, GSHMEM_CMP_EQ, 7L)
                 : form == 1 ? gshmem::wait_until_any(a, 4, nullptr, GSHMEM_CMP_EQ, 7L)
                 : form == 2 ? gshmem::test_any_vector(a, 4, nullptr, GSHMEM_CMP_EQ, values)
                             : gshmem::wait_until_any_vector(a, 4, nullptr, GSHMEM_CMP_EQ, values);
      REQUIRE(i < 4);
      REQUIRE(a[i] == 7);
      seen[k].insert(i);
    }
  }
  size_t starved = 0;
  for (size_t k = 0; k < arrays_n; ++k) starved += seen[k].size() != 2;
  CHECK(starved == 0);
}

TEST_CASE("_any: two callers alternating on one array each see every element", "[sync][cpu][any]") {
  // Two host threads take turns on the same array (elements 1 and 2 stay
  // satisfied). With one cursor per array, each thread would always get the
  // element the other one's call left next.
  std::vector<int> a(3, 0);
  a[1] = a[2] = 5;
  std::atomic<int> turn{0};
  std::set<size_t> seen[2];
  auto caller = [&](int me) {
    for (int call = 0; call < 100; ++call) {
      while (turn.load() != me) std::this_thread::yield();
      seen[me].insert(gshmem::test_any(a.data(), a.size(), nullptr, GSHMEM_CMP_EQ, 5));
      turn.store(1 - me);
    }
  };
  std::thread t0(caller, 0), t1(caller, 1);
  t0.join();
  t1.join();
  CHECK(seen[0] == std::set<size_t>{1, 2});
  CHECK(seen[1] == std::set<size_t>{1, 2});
}

TEST_CASE("_any: a lone caller still gets strict round-robin", "[sync][cpu][any]") {
  // 5 of 8 elements satisfied: 5 consecutive calls return 5 distinct indices.
  std::vector<unsigned> a = {1, 0, 1, 1, 0, 1, 0, 1};
  for (int series = 0; series < 3; ++series) {
    std::set<size_t> got;
    for (int call = 0; call < 5; ++call) got.insert(gshmem::test_any(a.data(), a.size(), nullptr, GSHMEM_CMP_EQ, 1u));
    CHECK(got == std::set<size_t>{0, 2, 3, 5, 7});
  }
  CHECK(gshmem::test_any(a.data(), a.size(), nullptr, GSHMEM_CMP_EQ, 9u) == kNone);
}

TEST_CASE("_any: 16 and 32 loads in flight share the rotation", "[sync][cpu][any]") {
  // One caller alternates the two scan widths (the C++ templates' second
  // argument) on one array: both read and advance the same cursor, so the
  // series is still strict round-robin over the satisfied elements, for
  // arrays around both widths' batches (8-byte and 4-byte elements).
  for (size_t n : {(size_t)31, (size_t)33, (size_t)65, (size_t)130}) {
    INFO("n " << n);
    std::vector<long> a(n, 0);
    std::vector<int> b(n, 0);
    std::vector<size_t> want;
    for (size_t i = 0; i < n; i += 1 + i % 5) {
      a[i] = 3;
      b[i] = 3;
      want.push_back(i);
    }
    for (int round = 0; round < 3; ++round) {
      // One array's series at a time: the two arrays' cursors may share a
      // table entry (a hash collision of their addresses, about 1 in 1024
      // runs), and then interleaved calls start at random places by design
      // (sync_core.h, "rotation cursor"), which this test does not check.
      std::vector<size_t> got_a, got_b;
      for (size_t call = 0; call < want.size(); ++call)
        got_a.push_back(call % 2 ? gshmem::test_any<long, 32>(a.data(), n, nullptr, GSHMEM_CMP_EQ, 3L)
                                 : gshmem::wait_until_any<long, 16>(a.data(), n, nullptr, GSHMEM_CMP_EQ, 3L));
      for (size_t call = 0; call < want.size(); ++call)
        got_b.push_back(call % 2 ? gshmem::wait_until_any<int, 32>(b.data(), n, nullptr, GSHMEM_CMP_EQ, 3)
                                 : gshmem::test_any<int, 16>(b.data(), n, nullptr, GSHMEM_CMP_EQ, 3));
      std::sort(got_a.begin(), got_a.end());
      std::sort(got_b.begin(), got_b.end());
      CHECK(got_a == want);  // every satisfied element once in |want| calls
      CHECK(got_b == want);
    }
  }
}

// The visits of one pass of the one-thread wide _any scan (sync_scan.h,
// wide_any_visits): every element looked at, the start's batch first and the
// elements below start last, re-reads of the first batch only from start on
// and only on the steps any_rechecks_first_batch names, and that many steps.
template <unsigned W>
void check_wide_any_pass(size_t n, size_t start, bool in_order = true) {
  INFO("W " << W << " n " << n << " start " << start << " in order " << in_order);
  using Visits = gshmem::detail::wide_any_visits<W>;
  Visits visits(n, start, in_order);
  CHECK(visits.start() == start);
  CHECK(visits.in_order() == in_order);
  std::vector<int> looked(n, 0);
  std::vector<size_t> order;  // elements in the order the pass looks at them, re-reads left out
  size_t base = 0;
  typename Visits::Mask keep = 0;
  unsigned steps = 0, rereads = 0;
  bool first = true;
  for (size_t v_before = visits.v; visits.next(base, keep); v_before = visits.v) {
    ++steps;
    REQUIRE(base + W <= n);  // a whole batch inside the array
    REQUIRE((base % W == 0 || base == n - W));
    const bool reread = visits.v == v_before;  // the position did not advance
    CHECK(reread == (!first && gshmem::detail::any_rechecks_first_batch(steps, in_order)));
    if (reread) {
      ++rereads;
      for (unsigned j = 0; j < W; ++j) CHECK(((keep >> j) & 1u) == (base + j >= start ? 1u : 0u));
      continue;
    }
    for (unsigned j = 0; j < W; ++j)
      if (keep >> j & 1u) {
        ++looked[base + j];
        order.push_back(base + j);
      }
    first = false;
  }
  CHECK(steps == visits.steps);
  for (size_t i = 0; i < n; ++i) CHECK(looked[i] == 1);  // each element exactly once, re-reads aside
  REQUIRE(order.size() == n);
  CHECK(order.front() == start);
  // From start to the end, then from 0 to start - 1: the two-range order.
  for (size_t k = 0; k < n; ++k) CHECK(order[k] == (start + k) % n);
  unsigned want_rereads = 0;
  for (unsigned s = 1; s <= steps; ++s) want_rereads += gshmem::detail::any_rechecks_first_batch(s, in_order) ? 1u : 0u;
  CHECK(rereads == want_rereads);
}

TEST_CASE("_any: the wide scan's pass looks at every element once, in rotation order", "[sync][cpu][any]") {
  for (size_t n : {(size_t)16, (size_t)17, (size_t)33, (size_t)100, (size_t)1024, (size_t)8193})
    for (size_t start : {(size_t)0, (size_t)1, (size_t)15, (size_t)16, (size_t)47, n / 2, n - 17, n - 1}) {
      if (start >= n) continue;
      for (bool in_order : {true, false}) {
        check_wide_any_pass<16>(n, start, in_order);
        if (n >= 32) check_wide_any_pass<32>(n, start, in_order);
        if (n >= 64) check_wide_any_pass<64>(n, start, in_order);
      }
    }
}

// Most visits take the plain path (the batch after the previous one, whole,
// no re-read) and only a few the full choice, whose arithmetic stands
// between two batches' loads; a second pass after restart() visits the same
// batches again.
TEST_CASE("_any: the wide scan's visits are mostly plain, and a pass restarts", "[sync][cpu][any]") {
  using Visits = gshmem::detail::wide_any_visits<16>;
  for (size_t start : {(size_t)0, (size_t)500, (size_t)1023}) {
    INFO("start " << start);
    Visits visits(1024, start);
    std::vector<size_t> first_pass;
    for (int pass = 0; pass < 2; ++pass) {
      visits.restart();
      size_t base = 0;
      Visits::Mask keep = 0;
      unsigned full = 0;
      std::vector<size_t> bases;
      for (unsigned plain_before = visits.plain; visits.next(base, keep); plain_before = visits.plain) {
        if (plain_before == 0) ++full;
        bases.push_back(base);
      }
      // 72 visits: the first, 7 re-reads and the visit after each, the last
      // batch, start's batch at the end, and the 16-step boundaries.
      CHECK(bases.size() == 72u);
      CHECK(full <= 24u);
      if (pass == 0) first_pass = bases;
      else CHECK(bases == first_pass);
    }
  }
}

TEST_CASE("_any: the first batch is re-read every 4th step through step 16, then every 16th", "[sync][cpu][any]") {
  using gshmem::detail::any_rechecks_first_batch;
  std::vector<unsigned> rereads, want = {4, 8, 12, 16};
  for (unsigned s = 1; s <= 300; ++s)
    if (any_rechecks_first_batch(s)) rereads.push_back(s);
  for (unsigned s = 32; s <= 300; s += 16) want.push_back(s);
  CHECK(rereads == want);
  // A pass over 1024 elements of 8 bytes, 16 loads a batch: 65 visits and 7
  // re-reads (every 4th step throughout made it 86 steps).
  gshmem::detail::wide_any_visits<16> visits(1024, 500);
  size_t base = 0;
  gshmem::detail::wide_any_visits<16>::Mask keep = 0;
  while (visits.next(base, keep)) {
  }
  CHECK(visits.steps == 72u);
}

// Without the in-order hint no step re-reads the first batch: a
// 1024-element pass of 16-load batches is 65 steps (the 64 batches and the
// first batch's part below start; 72 with the hint).
TEST_CASE("_any: without the in-order hint, the first batch is not re-read", "[sync][cpu][any]") {
  using gshmem::detail::any_rechecks_first_batch;
  for (unsigned s = 1; s <= 10000; ++s) REQUIRE_FALSE(any_rechecks_first_batch(s, false));
  CHECK(gshmem::detail::any_next_reread(0, false) == ~0u);
  for (size_t start : {(size_t)0, (size_t)500, (size_t)1023}) {
    gshmem::detail::wide_any_visits<16> visits(1024, start, false);
    size_t base = 0;
    gshmem::detail::wide_any_visits<16>::Mask keep = 0;
    unsigned visits_made = 0;
    while (visits.next(base, keep)) ++visits_made;
    CHECK(visits.steps == 65u);
    CHECK(visits_made == visits.steps);
  }
}

// The cursor keeps the hint beside the start: set when the result lay in the
// first batch the scan read (at or just after its start, as an in-order
// producer makes it), clear when it lay further on; a caller with no
// history on the array (another's entry in the slot) counts as in order.
TEST_CASE("_any: the cursor's in-order hint follows where the results lie", "[sync][cpu][any]") {
  constexpr size_t n = 1024;
  std::vector<long> ivars(n, 0);
  const gshmem::detail::any_cursor cursor(ivars.data(), gshmem::detail::any_caller_id());
  // In order: each result is the element at the start.
  size_t expect = 0;
  for (int call = 0; call < 40; ++call) {
    ivars[expect] = 1;
    const size_t got = gshmem::test_any(ivars.data(), n, nullptr, GSHMEM_CMP_EQ, 1L);
    REQUIRE(got == expect);
    ivars[expect] = 0;
    const gshmem::detail::any_cursor_entry e = cursor.load_raw();
    CHECK(cursor.start(e, n) == (expect + 1) % n);
    if (call > 0) CHECK(cursor.in_order(e));
    expect = (expect + 1) % n;
  }
  // Far from the start (half the array on): the hint clears; the start
  // still reads back below n (the hint bit is not part of it).
  const size_t far = (expect + n / 2) % n;
  ivars[far] = 1;
  REQUIRE(gshmem::test_any(ivars.data(), n, nullptr, GSHMEM_CMP_EQ, 1L) == far);
  ivars[far] = 0;
  gshmem::detail::any_cursor_entry e = cursor.load_raw();
  CHECK_FALSE(cursor.in_order(e));
  CHECK(cursor.start(e, n) == far + 1);
  CHECK(cursor.start(e, far + 1) == 0);  // past a shorter array's end: start over
  // Within the first batch of 16 from the start: set again.
  ivars[far + 1 + 9] = 1;
  REQUIRE(gshmem::test_any(ivars.data(), n, nullptr, GSHMEM_CMP_EQ, 1L) == far + 1 + 9);
  e = cursor.load_raw();
  CHECK(cursor.in_order(e));
  // Another caller's entry in the slot: no history, counted as in order.
  any_cursor_entry_of_another(e);
  CHECK(cursor.in_order(e));
}
