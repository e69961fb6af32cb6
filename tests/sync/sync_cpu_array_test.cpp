// CPU conformance of the array families (_all, _any, _some, scalar and
// _vector, wait and test): every type x every cmp, extremes, masks, NULL
// status, empty sets, _some uniqueness, _any rotation.
#include "sync_cpu_common.h"

#include <algorithm>

using namespace sync_test;

namespace {

constexpr size_t kNone = (size_t)-1;

template <class T>
int call_test_all(array_case<T> &c, int cmp) {
  return c.cmp_values.empty()
             ? gshmem::test_all(c.ivars.data(), c.ivars.size(), c.status_ptr(), cmp, c.cmp_value)
             : gshmem::test_all_vector(c.ivars.data(), c.ivars.size(), c.status_ptr(), cmp, c.cmp_values.data());
}
template <class T>
void call_wait_all(array_case<T> &c, int cmp) {
  if (c.cmp_values.empty()) gshmem::wait_until_all(c.ivars.data(), c.ivars.size(), c.status_ptr(), cmp, c.cmp_value);
  else gshmem::wait_until_all_vector(c.ivars.data(), c.ivars.size(), c.status_ptr(), cmp, c.cmp_values.data());
}
template <class T>
size_t call_any(array_case<T> &c, int cmp, bool wait) {
  if (c.cmp_values.empty())
    return wait ? gshmem::wait_until_any(c.ivars.data(), c.ivars.size(), c.status_ptr(), cmp, c.cmp_value)
                : gshmem::test_any(c.ivars.data(), c.ivars.size(), c.status_ptr(), cmp, c.cmp_value);
  return wait ? gshmem::wait_until_any_vector(c.ivars.data(), c.ivars.size(), c.status_ptr(), cmp, c.cmp_values.data())
              : gshmem::test_any_vector(c.ivars.data(), c.ivars.size(), c.status_ptr(), cmp, c.cmp_values.data());
}
template <class T>
size_t call_some(array_case<T> &c, int cmp, bool wait, size_t *indices) {
  if (c.cmp_values.empty())
    return wait ? gshmem::wait_until_some(c.ivars.data(), c.ivars.size(), indices, c.status_ptr(), cmp, c.cmp_value)
                : gshmem::test_some(c.ivars.data(), c.ivars.size(), indices, c.status_ptr(), cmp, c.cmp_value);
  return wait ? gshmem::wait_until_some_vector(c.ivars.data(), c.ivars.size(), indices, c.status_ptr(), cmp,
                                               c.cmp_values.data())
              : gshmem::test_some_vector(c.ivars.data(), c.ivars.size(), indices, c.status_ptr(), cmp,
                                         c.cmp_values.data());
}

// Checks every routine of the family against the reference for one case.
template <class T>
void check_case(array_case<T> &c, int cmp) {
  const size_t n = c.ivars.size();
  const size_t want = c.count_satisfied();
  // _all
  CHECK(call_test_all(c, cmp) == (c.all_satisfied() ? 1 : 0));
  if (c.all_satisfied()) call_wait_all(c, cmp);
  // _any
  size_t got = call_any(c, cmp, false);
  if (want == 0) {
    CHECK(got == kNone);
  } else {
    REQUIRE(got < n);
    CHECK(c.satisfied[got]);
    size_t waited = call_any(c, cmp, true);
    REQUIRE(waited < n);
    CHECK(c.satisfied[waited]);
  }
  // _some: exactly the satisfied set, unique, ascending, nothing written past it
  std::vector<size_t> indices(n + 1, kNone);
  size_t count = call_some(c, cmp, false, indices.data());
  CHECK(count == want);
  std::vector<size_t> expected;
  for (size_t i = 0; i < n; ++i)
    if (c.satisfied[i]) expected.push_back(i);
  std::vector<size_t> reported(indices.begin(), indices.begin() + (ptrdiff_t)std::min(count, n));
  CHECK(reported == expected);
  CHECK(indices[count <= n ? count : n] == kNone);
  if (want) {
    std::vector<size_t> again(n, kNone);
    CHECK(call_some(c, cmp, true, again.data()) == want);
    again.resize(want);
    CHECK(again == expected);
  }
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("array routines agree with the reference, every cmp", "[sync][cpu]", sync_types) {
  for (int cmp : kAllCmps)
    for (size_t n : {(size_t)1, (size_t)15, (size_t)16, (size_t)17, (size_t)37, (size_t)100})
      for (bool masked : {false, true})
        for (bool vector : {false, true})
          for (int salt : {0, 1, 3}) {
            INFO("cmp " << cmp << " n " << n << " masked " << masked << " vector " << vector << " salt " << salt);
            auto c = make_case<TestType>(n, cmp, masked, vector, salt);
            check_case(c, cmp);
          }
}

TEMPLATE_LIST_TEST_CASE("all elements satisfied at the extremes", "[sync][cpu]", sync_types) {
  using L = std::numeric_limits<TestType>;
  for (TestType v : {L::min(), L::max()}) {
    std::vector<TestType> a(33, v);
    std::vector<TestType> values(33, v);
    std::vector<size_t> idx(33);
    for (int cmp : {GSHMEM_CMP_EQ, GSHMEM_CMP_GE, GSHMEM_CMP_LE}) {
      CHECK(gshmem::test_all(a.data(), a.size(), nullptr, cmp, v) == 1);
      CHECK(gshmem::test_all_vector(a.data(), a.size(), nullptr, cmp, values.data()) == 1);
      gshmem::wait_until_all(a.data(), a.size(), nullptr, cmp, v);
      CHECK(gshmem::test_some(a.data(), a.size(), idx.data(), nullptr, cmp, v) == 33);
    }
    for (int cmp : {GSHMEM_CMP_NE, GSHMEM_CMP_GT, GSHMEM_CMP_LT}) {
      CHECK(gshmem::test_all(a.data(), a.size(), nullptr, cmp, v) == 0);
      CHECK(gshmem::test_any(a.data(), a.size(), nullptr, cmp, v) == kNone);
      CHECK(gshmem::test_some_vector(a.data(), a.size(), idx.data(), nullptr, cmp, values.data()) == 0);
    }
  }
  // max vs min: the signed/unsigned boundary is where a wrong conversion would show.
  std::vector<TestType> a(5, L::max());
  CHECK(gshmem::test_all(a.data(), a.size(), nullptr, GSHMEM_CMP_GT, L::min()) == 1);
  CHECK(gshmem::test_any(a.data(), a.size(), nullptr, GSHMEM_CMP_LT, L::min()) == kNone);
}

TEMPLATE_LIST_TEST_CASE("empty sets: n == 0 and every element excluded", "[sync][cpu]", sync_types) {
  std::vector<TestType> a(20, TestType{});  // nothing satisfies GT 0... with GT max
  const TestType never = std::numeric_limits<TestType>::max();
  std::vector<TestType> values(20, never);
  std::vector<int> none(20, 1);
  std::vector<int> negative(20, -3);  // any nonzero value excludes
  std::vector<size_t> idx(20, 7);
  for (const int *status : {(const int *)nullptr, (const int *)none.data(), (const int *)negative.data()}) {
    size_t n = status ? 20 : 0;
    INFO("n " << n);
    gshmem::wait_until_all(a.data(), n, status, GSHMEM_CMP_GT, never);  // returns at once
    gshmem::wait_until_all_vector(a.data(), n, status, GSHMEM_CMP_GT, values.data());
    CHECK(gshmem::test_all(a.data(), n, status, GSHMEM_CMP_GT, never) == 1);
    CHECK(gshmem::test_all_vector(a.data(), n, status, GSHMEM_CMP_GT, values.data()) == 1);
    CHECK(gshmem::wait_until_any(a.data(), n, status, GSHMEM_CMP_GT, never) == kNone);
    CHECK(gshmem::wait_until_any_vector(a.data(), n, status, GSHMEM_CMP_GT, values.data()) == kNone);
    CHECK(gshmem::test_any(a.data(), n, status, GSHMEM_CMP_GT, never) == kNone);
    CHECK(gshmem::test_any_vector(a.data(), n, status, GSHMEM_CMP_GT, values.data()) == kNone);
    CHECK(gshmem::wait_until_some(a.data(), n, idx.data(), status, GSHMEM_CMP_GT, never) == 0);
    CHECK(gshmem::wait_until_some_vector(a.data(), n, idx.data(), status, GSHMEM_CMP_GT, values.data()) == 0);
    CHECK(gshmem::test_some(a.data(), n, idx.data(), status, GSHMEM_CMP_GT, never) == 0);
    CHECK(gshmem::test_some_vector(a.data(), n, idx.data(), status, GSHMEM_CMP_GT, values.data()) == 0);
    CHECK(idx == std::vector<size_t>(20, 7));  // nothing written
  }
  // n == 0 with a NULL array is fine too.
  CHECK(gshmem::test_any((TestType *)nullptr, 0, nullptr, GSHMEM_CMP_EQ, TestType{}) == kNone);
  CHECK(gshmem::test_all((TestType *)nullptr, 0, nullptr, GSHMEM_CMP_EQ, TestType{}) == 1);
}

TEMPLATE_LIST_TEST_CASE("excluded elements are never reported, whatever their value", "[sync][cpu]", sync_types) {
  std::vector<TestType> a(50, TestType{1});
  std::vector<int> status(50, 0);
  for (size_t i = 0; i < 50; i += 2) status[i] = 1;
  a[10] = TestType{0};  // excluded and unsatisfied: must not block _all
  std::vector<size_t> idx(50);
  CHECK(gshmem::test_all(a.data(), 50, status.data(), GSHMEM_CMP_EQ, TestType{1}) == 1);
  size_t count = gshmem::test_some(a.data(), 50, idx.data(), status.data(), GSHMEM_CMP_EQ, TestType{1});
  REQUIRE(count == 25);
  for (size_t k = 0; k < count; ++k) CHECK(idx[k] % 2 == 1);
  for (int call = 0; call < 60; ++call) {
    size_t i = gshmem::test_any(a.data(), 50, status.data(), GSHMEM_CMP_EQ, TestType{1});
    REQUIRE(i < 50);
    CHECK(i % 2 == 1);
  }
}

TEMPLATE_LIST_TEST_CASE("_any rotates: n calls return every satisfied element", "[sync][cpu]", sync_types) {
  for (size_t n : {(size_t)1, (size_t)7, (size_t)16, (size_t)45}) {
    std::vector<TestType> a(n, TestType{2});
    std::vector<TestType> values(n, TestType{2});
    std::vector<int> status(n, 0);
    if (n > 2) status[1] = 1;
    std::set<size_t> want;
    for (size_t i = 0; i < n; ++i)
      if (!status[i]) want.insert(i);
    for (int form = 0; form < 4; ++form) {
      INFO("n " << n << " form " << form);
      std::set<size_t> seen;
      for (size_t call = 0; call < want.size(); ++call) {
        size_t i = form == 0   ? gshmem::test_any(a.data(), n, status.data(), GSHMEM_CMP_GE, TestType{2})
                   : form == 1 ? gshmem::wait_until_any(a.data(), n, status.data(), GSHMEM_CMP_GE, TestType{2})
                   : form == 2 ? gshmem::test_any_vector(a.data(), n, status.data(), GSHMEM_CMP_EQ, values.data())
                               : gshmem::wait_until_any_vector(a.data(), n, status.data(), GSHMEM_CMP_LE,
                                                               values.data());
        REQUIRE(i < n);
        seen.insert(i);
      }
      CHECK(seen == want);  // no element starves: all distinct within |want| calls
    }
  }
}

// The one-thread _any scans arrays of at least one wide batch (16 elements
// of 8 bytes, 32 of 4 bytes or less; with 32 loads in flight,
// GSHMEM_WAIT_SCAN_LOADS=32 or the C++ templates' argument 32: 32 and 64)
// in aligned batches, the last one ending at the array's end: the scan
// order is still the rotation, so with every included element satisfied
// each call returns the next included element after the previous one,
// wrapping, whatever the start and however the array ends (a multiple of
// the batch or not). Both batch sizes, arrays around their boundaries.
template <class TestType, unsigned ScanLoads>
void check_wide_rotation() {
  for (size_t n : {(size_t)15, (size_t)16, (size_t)17, (size_t)19, (size_t)20, (size_t)21, (size_t)31, (size_t)32,
                   (size_t)33, (size_t)40, (size_t)45, (size_t)63, (size_t)64, (size_t)65, (size_t)100, (size_t)127,
                   (size_t)128, (size_t)129, (size_t)130}) {
    std::vector<TestType> a(n, TestType{2});
    std::vector<int> status(n, 0);
    status[n / 3] = 1;
    status[n - 1] = 1;
    for (int wait = 0; wait < 2; ++wait) {
      INFO("n " << n << " wait " << wait << " loads " << ScanLoads);
      auto call = [&] {
        return wait ? gshmem::wait_until_any<TestType, ScanLoads>(a.data(), n, status.data(), GSHMEM_CMP_GE,
                                                                   TestType{2})
                    : gshmem::test_any<TestType, ScanLoads>(a.data(), n, status.data(), GSHMEM_CMP_GE, TestType{2});
      };
      size_t prev = call();
      REQUIRE(prev < n);
      for (size_t k = 0; k < 2 * n; ++k) {
        size_t next = (prev + 1) % n;
        while (status[next]) next = (next + 1) % n;
        const size_t got = call();
        REQUIRE(got == next);
        prev = got;
      }
      // Only one element satisfied, anywhere: found from any start.
      for (size_t only = 0; only < n; only += 7) {
        if (status[only]) continue;
        std::vector<TestType> b(n, TestType{1});
        b[only] = TestType{2};
        CHECK(gshmem::test_any<TestType, ScanLoads>(b.data(), n, status.data(), GSHMEM_CMP_GE, TestType{2}) == only);
        b[only] = TestType{1};
        CHECK(gshmem::test_any<TestType, ScanLoads>(b.data(), n, status.data(), GSHMEM_CMP_GE, TestType{2}) ==
              kNone);
      }
    }
  }
}

TEMPLATE_LIST_TEST_CASE("_any: wide arrays are scanned in rotated order", "[sync][cpu][any]", sync_types) {
  check_wide_rotation<TestType, 16>();
}

TEMPLATE_LIST_TEST_CASE("_any with 32 loads in flight: wide arrays are scanned in rotated order", "[sync][cpu][any]",
                        sync_types) {
  check_wide_rotation<TestType, 32>();
}

// The batch each choice scans, by element size (what the rotation test
// above relies on to cross the batch boundaries).
TEST_CASE("_any: the wide batch of each choice", "[sync][cpu][any]") {
  namespace gd = gshmem::detail;
  STATIC_REQUIRE(gd::wide_any_batch_of<gd::single_group_of<16>, uint64_t>() == 16);
  STATIC_REQUIRE(gd::wide_any_batch_of<gd::single_group_of<16>, uint32_t>() == 32);
  STATIC_REQUIRE(gd::wide_any_batch_of<gd::single_group_of<16>, char>() == 32);
  STATIC_REQUIRE(gd::wide_any_batch_of<gd::single_group_of<32>, uint64_t>() == 32);
  STATIC_REQUIRE(gd::wide_any_batch_of<gd::single_group_of<32>, int>() == 64);
  STATIC_REQUIRE(gd::wide_any_batch_of<gd::single_group_of<32>, short>() == 64);
  STATIC_REQUIRE(std::is_same<gd::any_scan_group, gd::single_group_of<GSHMEM_WAIT_SCAN_LOADS>>::value);
}
