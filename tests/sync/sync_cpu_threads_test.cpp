// CPU conformance with host threads as the updating PEs: array waits
// released by later updates, message passing through every routine, and
// _any liveness under a stream of updates.
#include "sync_cpu_common.h"

#include <atomic>

using namespace sync_test;
namespace gd = gshmem::detail;

TEMPLATE_LIST_TEST_CASE("array waits are released by a later update, every cmp", "[sync][cpu]", sync_types) {
  const auto lad = ladder<TestType>();
  const int levels = (int)lad.size();
  const int q = levels / 2;
  const size_t n = 37;
  for (int cmp : kAllCmps)
    for (int routine = 0; routine < 6; ++routine) {
      INFO("cmp " << cmp << " routine " << routine);
      std::vector<TestType> a(n, lad[pick_position(cmp, q, false, 0, levels)]);
      std::vector<TestType> values(n, lad[q]);
      std::vector<TestType> payload(n, lad[0]);
      const TestType hit = lad[pick_position(cmp, q, true, 2, levels)];
      const size_t first = 29;  // the _any/_some waits are released by this element
      std::thread updater([&] {
        pause_briefly();
        for (size_t k = 0; k < n; ++k) {
          size_t i = (first + k) % n;
          relaxed_store(&payload[i], lad[levels - 1]);
          release_store(&a[i], hit);
        }
      });
      std::vector<size_t> idx(n);
      size_t got = 0;
      switch (routine) {
        case 0: gshmem::wait_until_all(a.data(), n, nullptr, cmp, lad[q]); break;
        case 1: gshmem::wait_until_all_vector(a.data(), n, nullptr, cmp, values.data()); break;
        case 2: got = gshmem::wait_until_any(a.data(), n, nullptr, cmp, lad[q]); break;
        case 3: got = gshmem::wait_until_any_vector(a.data(), n, nullptr, cmp, values.data()); break;
        case 4: got = gshmem::wait_until_some(a.data(), n, idx.data(), nullptr, cmp, lad[q]); break;
        default: got = gshmem::wait_until_some_vector(a.data(), n, idx.data(), nullptr, cmp, values.data()); break;
      }
      // Whatever was reported satisfied has its payload visible (acquire).
      if (routine < 2) {
        for (size_t i = 0; i < n; ++i) CHECK(gd::atomic_load<gshmem::memory_order::relaxed>(&payload[i]) == lad[levels - 1]);
      } else if (routine < 4) {
        REQUIRE(got < n);
        CHECK(gd::atomic_load<gshmem::memory_order::relaxed>(&payload[got]) == lad[levels - 1]);
      } else {
        REQUIRE(got >= 1);
        REQUIRE(got <= n);
        std::set<size_t> unique(idx.begin(), idx.begin() + (ptrdiff_t)got);
        CHECK(unique.size() == got);
        for (size_t k = 0; k < got; ++k) {
          REQUIRE(idx[k] < n);
          CHECK(gd::atomic_load<gshmem::memory_order::relaxed>(&payload[idx[k]]) == lad[levels - 1]);
        }
      }
      updater.join();
    }
}

TEST_CASE("message passing: every wait form orders the payload", "[sync][cpu]") {
  // A ping-pong between two threads: the producer writes a payload, then
  // the flag with release; the consumer waits, checks the payload, then
  // acknowledges. Any missing acquire would let a stale payload through on
  // weakly ordered hosts.
  const int iterations = 20000;
  uint64_t flag = 0, ack = 0;
  uint64_t payload[4] = {0, 0, 0, 0};
  std::thread producer([&] {
    for (uint64_t i = 1; i <= (uint64_t)iterations; ++i) {
      for (auto &p : payload) relaxed_store(&p, i);
      release_store(&flag, i);
      gshmem::wait_until(&ack, GSHMEM_CMP_GE, i);
    }
  });
  int violations = 0;
  size_t idx[1];
  for (uint64_t i = 1; i <= (uint64_t)iterations; ++i) {
    switch (i % 5) {
      case 0: gshmem::wait_until(&flag, GSHMEM_CMP_GE, i); break;
      case 1: (void)gshmem::signal_wait_until(&flag, GSHMEM_CMP_EQ, i); break;
      case 2: gshmem::wait_until_all(&flag, 1, nullptr, GSHMEM_CMP_GE, i); break;
      case 3: (void)gshmem::wait_until_any(&flag, 1, nullptr, GSHMEM_CMP_GE, i); break;
      default: (void)gshmem::wait_until_some(&flag, 1, idx, nullptr, GSHMEM_CMP_GE, i); break;
    }
    for (auto &p : payload) violations += gd::atomic_load<gshmem::memory_order::relaxed>(&p) != i;
    release_store(&ack, i);
  }
  producer.join();
  CHECK(violations == 0);
}

TEMPLATE_LIST_TEST_CASE("_any stays live under a stream of updates", "[sync][cpu]", sync_types) {
  // Every element stays satisfied (!= 0) while an updater keeps rewriting
  // them; repeated _any calls must still return every index.
  const size_t n = 24;
  std::vector<TestType> a(n, TestType{1});
  std::atomic<bool> stop{false};
  std::thread updater([&] {
    TestType v = 1;
    while (!stop.load()) {
      for (size_t i = 0; i < n; ++i) release_store(&a[i], v);
      v = v == TestType{1} ? TestType{2} : TestType{1};
    }
  });
  std::set<size_t> seen;
  for (size_t call = 0; call < 3 * n; ++call) {
    size_t i = call % 2 ? gshmem::wait_until_any(a.data(), n, nullptr, GSHMEM_CMP_NE, TestType{0})
                        : gshmem::test_any(a.data(), n, nullptr, GSHMEM_CMP_NE, TestType{0});
    REQUIRE(i < n);
    seen.insert(i);
  }
  stop = true;
  updater.join();
  CHECK(seen.size() == n);
}
