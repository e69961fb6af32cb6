// CPU conformance: comparison exactness and the single-element routines
// (wait, wait_until, test, signal_wait_until), invalid cmp and timeouts.
#include "sync_cpu_common.h"

using namespace sync_test;
namespace gd = gshmem::detail;

TEMPLATE_LIST_TEST_CASE("compare is exact at the extremes of every type", "[sync][cpu]", sync_types) {
  const auto lad = ladder<TestType>();
  for (int cmp : kAllCmps)
    for (int a = 0; a < (int)lad.size(); ++a)
      for (int b = 0; b < (int)lad.size(); ++b) {
        INFO("cmp " << cmp << " positions " << a << ", " << b);
        CHECK(gd::compare(cmp, lad[a], lad[b]) == cmp_positions(cmp, a, b));
      }
  CHECK_FALSE(gd::compare(6, lad[0], lad[0]));
  CHECK_FALSE(gd::compare(-1, lad[0], lad[0]));
}

TEMPLATE_LIST_TEST_CASE("test and wait_until on one element, every cmp", "[sync][cpu]", sync_types) {
  const auto lad = ladder<TestType>();
  const int levels = (int)lad.size();
  for (int cmp : kAllCmps)
    for (int a = 0; a < levels; ++a)
      for (int b = 0; b < levels; ++b) {
        TestType ivar = lad[a];
        bool expect = cmp_positions(cmp, a, b);
        INFO("cmp " << cmp << " positions " << a << ", " << b);
        CHECK(gshmem::test(&ivar, cmp, lad[b]) == (expect ? 1 : 0));
        if (expect) gshmem::wait_until(&ivar, cmp, lad[b]);  // returns at once
      }
  TestType ivar = lad[0];
  gshmem::wait(&ivar, lad[1]);  // != holds at once
  CHECK(ivar == lad[0]);
}

TEMPLATE_LIST_TEST_CASE("wait_until and wait are released by a later update", "[sync][cpu]", sync_types) {
  const auto lad = ladder<TestType>();
  const int levels = (int)lad.size();
  const int q = levels / 2;
  for (int cmp : kAllCmps) {
    INFO("cmp " << cmp);
    TestType ivar = lad[pick_position(cmp, q, false, 0, levels)];
    TestType payload = lad[0];
    const TestType target = lad[pick_position(cmp, q, true, 1, levels)];
    std::thread updater([&] {
      pause_briefly();
      relaxed_store(&payload, lad[levels - 1]);
      release_store(&ivar, target);
    });
    gshmem::wait_until(&ivar, cmp, lad[q]);
    // Acquire on return: the payload written before the release is visible.
    CHECK(gd::atomic_load<gshmem::memory_order::relaxed>(&payload) == lad[levels - 1]);
    updater.join();
  }
  TestType ivar = lad[1];
  std::thread updater([&] { pause_briefly(); release_store(&ivar, lad[2]); });
  gshmem::wait(&ivar, lad[1]);
  CHECK(gd::atomic_load<gshmem::memory_order::relaxed>(&ivar) == lad[2]);
  updater.join();
}

TEST_CASE("signal_wait_until returns the satisfying value", "[sync][cpu]") {
  for (int cmp : kAllCmps) {
    INFO("cmp " << cmp);
    uint64_t sig = 5;
    // 5 fails each of these against the chosen value; 9 or 0 satisfies.
    uint64_t value = (cmp == GSHMEM_CMP_EQ) ? 9 : (cmp == GSHMEM_CMP_NE) ? 5 : (cmp == GSHMEM_CMP_GT || cmp == GSHMEM_CMP_GE) ? 8 : 3;
    uint64_t release = (cmp == GSHMEM_CMP_LT || cmp == GSHMEM_CMP_LE) ? 0 : 9;
    if (cmp == GSHMEM_CMP_NE) release = 6;
    std::thread updater([&] { pause_briefly(); release_store(&sig, release); });
    CHECK(gshmem::signal_wait_until(&sig, cmp, value) == release);
    updater.join();
  }
  uint64_t sig = std::numeric_limits<uint64_t>::max();
  CHECK(gshmem::signal_wait_until(&sig, GSHMEM_CMP_GT, std::numeric_limits<uint64_t>::max() - 1) ==
        std::numeric_limits<uint64_t>::max());
}

TEMPLATE_LIST_TEST_CASE("an invalid cmp reports PE, routine and value, then traps", "[sync][cpu]", sync_types) {
  throwing_handler_scope hook;
  TestType x{};
  TestType values[3] = {};
  size_t indices[3];
  const gd::wait_context ctx{5, 0};
  for (int bad : {-1, 6, 1000}) {
    INFO("cmp " << bad);
    try {
      (void)gd::wait_one(ctx, "gshmem_T_wait_until", &x, bad, TestType{});
      FAIL("no diagnostic");
    } catch (const sync_failure_seen &e) {
      CHECK(e.diag.kind == gshmem::sync_failure::invalid_cmp);
      CHECK(e.diag.pe == 5);
      CHECK(e.diag.cmp == bad);
      CHECK(std::string(e.diag.routine) == "gshmem_T_wait_until");
      std::string line = e.diag.line;
      CHECK(line.find("PE 5") != std::string::npos);
      CHECK(line.find("gshmem_T_wait_until") != std::string::npos);
      CHECK(line.find("invalid cmp " + std::to_string(bad)) != std::string::npos);
    }
    // Every public routine rejects it before polling (and before looking at an empty set).
    CHECK_THROWS_AS(gshmem::test(&x, bad, TestType{}), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::wait_until(&x, bad, TestType{}), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::wait_until_all(values, 3, nullptr, bad, TestType{}), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::wait_until_all_vector(values, 0, nullptr, bad, values), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::wait_until_any(values, 0, nullptr, bad, TestType{}), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::wait_until_any_vector(values, 3, nullptr, bad, values), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::wait_until_some(values, 3, indices, nullptr, bad, TestType{}), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::wait_until_some_vector(values, 3, indices, nullptr, bad, values), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::test_all(values, 0, nullptr, bad, TestType{}), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::test_all_vector(values, 3, nullptr, bad, values), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::test_any(values, 3, nullptr, bad, TestType{}), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::test_any_vector(values, 3, nullptr, bad, values), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::test_some(values, 3, indices, nullptr, bad, TestType{}), sync_failure_seen);
    CHECK_THROWS_AS(gshmem::test_some_vector(values, 3, indices, nullptr, bad, values), sync_failure_seen);
  }
  uint64_t sig = 0;
  CHECK_THROWS_AS(gshmem::signal_wait_until(&sig, 17, 0), sync_failure_seen);
}

TEMPLATE_LIST_TEST_CASE("a wait past its timeout reports PE, address, expected and seen", "[sync][cpu]",
                        sync_types) {
  throwing_handler_scope hook;
  const auto lad = ladder<TestType>();
  const gd::wait_context ctx{3, 2000000ull};  // 2 ms
  SECTION("single element") {
    TestType x = lad[1];
    try {
      (void)gd::wait_one(ctx, "gshmem_T_wait_until", &x, GSHMEM_CMP_GE, lad.back());
      FAIL("the wait returned");
    } catch (const sync_failure_seen &e) {
      CHECK(e.diag.kind == gshmem::sync_failure::timeout);
      CHECK(e.diag.pe == 3);
      CHECK(e.diag.address == (const void *)&x);
      char want_expected[64], want_seen[32];
      gd::format_value(want_seen, sizeof want_seen, lad.back());
      std::snprintf(want_expected, sizeof want_expected, "GE %s", want_seen);
      gd::format_value(want_seen, sizeof want_seen, lad[1]);
      CHECK(std::string(e.diag.expected) == want_expected);
      CHECK(std::string(e.diag.seen) == want_seen);
      std::string line = e.diag.line;
      CHECK(line.find("PE 3") != std::string::npos);
      CHECK(line.find("timed out") != std::string::npos);
      CHECK(line.find(want_expected) != std::string::npos);
    }
  }
  SECTION("array: names the first unsatisfied element") {
    std::vector<TestType> v(40, lad.back());
    v[23] = lad[0];
    gd::single_group g;
    try {
      (void)gd::scan_all<true>(g, ctx, "gshmem_T_wait_until_all", v.data(), v.size(), nullptr, GSHMEM_CMP_EQ,
                               gd::same_value<TestType>{lad.back()});
      FAIL("the wait returned");
    } catch (const sync_failure_seen &e) {
      CHECK(e.diag.kind == gshmem::sync_failure::timeout);
      CHECK(e.diag.index == 23);
      CHECK(e.diag.nelems == 40);
      CHECK(e.diag.address == (const void *)&v[23]);
    }
    std::vector<int> status(40, 1);  // the _any wait over one excluded... and one included element
    status[30] = 0;
    try {
      (void)gd::scan_any<true>(g, ctx, "gshmem_T_wait_until_any", v.data(), v.size(), status.data(),
                               GSHMEM_CMP_NE, gd::same_value<TestType>{lad.back()});
      FAIL("the wait returned");
    } catch (const sync_failure_seen &e) {
      CHECK(e.diag.index == 30);
      CHECK(e.diag.address == (const void *)&v[30]);
    }
    size_t indices[40];
    CHECK_THROWS_AS(gd::scan_some<true>(g, ctx, "gshmem_T_wait_until_some", v.data(), v.size(), indices, nullptr,
                                        GSHMEM_CMP_GT, gd::same_value<TestType>{lad.back()}),
                    sync_failure_seen);
  }
}

TEST_CASE("a disarmed watchdog never expires, an armed one does", "[sync][cpu]") {
  gd::watchdog off(false, 1000000ull, gd::start_on_first_tick);  // disarmed: even a timeout is ignored
  gd::watchdog forever(true, 0, gd::start_on_first_tick);        // armed, no timeout, no peer lost
  for (int i = 0; i < 100000; ++i) {
    REQUIRE_FALSE(off.expired(1));
    REQUIRE_FALSE(forever.expired(1));
  }
  gd::watchdog on(true, 1000000ull, gd::start_on_first_tick);  // 1 ms from its first check
  bool expired = false;
  for (int i = 0; i < 1024; ++i) expired |= on.expired(1);  // the first check starts the clock
  CHECK_FALSE(expired);
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  for (int i = 0; i < 2048 && !expired; ++i) expired = on.expired(1);
  CHECK(expired);
}

// The runtime's liveness monitor raises a word that the waits' slow path
// reads (gshmemi_state().peer_lost_word): a wait nobody satisfies must end,
// with no timeout set, naming the lost PE. Here the host copy of the state
// points at a word of the test's own.
struct peer_lost_scope {
  int word;
  const int *previous;
  explicit peer_lost_scope(int lost_pe) : word(lost_pe + 1) {
    auto &state = const_cast<gshmemi_device_state_t &>(*gshmemi_host_state());
    previous = state.peer_lost_word;
    state.peer_lost_word = &word;
  }
  ~peer_lost_scope() { const_cast<gshmemi_device_state_t &>(*gshmemi_host_state()).peer_lost_word = previous; }
};

TEMPLATE_LIST_TEST_CASE("a wait on a lost peer ends naming the PE, with no timeout set", "[sync][cpu]",
                        sync_types) {
  throwing_handler_scope hook;
  const auto lad = ladder<TestType>();
  const gd::wait_context ctx{1, 0};  // GSHMEM_WAIT_TIMEOUT=0: only the peer loss can end these waits
  TestType values[100];
  for (auto &v : values) v = lad[0];
  size_t indices[100];
  // The public forms report the state's PE (0 on the host before init), the
  // detail forms their context's.
  auto expect_lost = [&](auto &&wait, const char *what, int pe = 1) {
    INFO(what);
    try {
      wait();
      FAIL("the wait returned");
    } catch (const sync_failure_seen &e) {
      CHECK(e.diag.kind == gshmem::sync_failure::peer_lost);
      CHECK(e.diag.lost_pe == 3);
      CHECK(e.diag.pe == pe);
      CHECK(std::string(e.diag.line).find("PE 3 is gone") != std::string::npos);
    }
  };
  {
    peer_lost_scope lost(3);
    expect_lost([&] { (void)gd::wait_one(ctx, "gshmem_T_wait_until", &values[0], GSHMEM_CMP_GE, lad.back()); },
                "wait_until");
    auto all = [&] {
      gd::single_group g;
      (void)gd::scan_all<true>(g, ctx, "gshmem_T_wait_until_all", values, 100, nullptr, GSHMEM_CMP_GE,
                               gd::same_value<TestType>{lad.back()});
    };
    expect_lost(all, "wait_until_all");
    expect_lost([&] { (void)gshmem::wait_until_any(values, 100, nullptr, GSHMEM_CMP_GE, lad.back()); },
                "wait_until_any", 0);
    expect_lost([&] { (void)gshmem::wait_until_some(values, 100, indices, nullptr, GSHMEM_CMP_GE, lad.back()); },
                "wait_until_some", 0);
  }
  // The word back at 0 (no loss): a satisfied wait returns, an unsatisfied test says 0.
  CHECK(gshmem::test_all(values, 100, nullptr, GSHMEM_CMP_GE, lad.back()) == 0);
  gshmem::wait_until_all(values, 100, nullptr, GSHMEM_CMP_GE, lad[0]);
}
