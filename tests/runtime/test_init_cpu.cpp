// gshmem_init as a single PE. Without a GPU (CI) init must fail with
// GSHMEMX_ERROR_NO_DEVICE and leave the process usable; with a GPU it must
// succeed. Bad environment values fail before any GPU is touched.
#include <gshmem/gshmem.h>

#include "catch.hpp"
#include "test_support.h"

using gshmem_test::ScopedEnv;

TEST_CASE("GSHMEM_SYMMETRIC_SIZE=banana makes init fail with an environment error") {
  ScopedEnv bootstrap("GSHMEM_BOOTSTRAP", "single");
  ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "banana");
  CHECK(gshmem_init() == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(gshmemx_initialized() == 0);
  CHECK(gshmem_my_pe() == -1);
}

TEST_CASE("a malformed GSHMEM_FAULT_INJECT is an environment error") {
  ScopedEnv bootstrap("GSHMEM_BOOTSTRAP", "single");
  for (const char *bad : {"init", "reboot:0", "init:", "init:x", "init:-1", "barrier:1x"}) {
    INFO(bad);
    ScopedEnv fault("GSHMEM_FAULT_INJECT", bad);
    CHECK(gshmem_init() == GSHMEMX_ERROR_ENVIRONMENT);
    CHECK(gshmemx_initialized() == 0);
  }
}

TEST_CASE("an unknown GSHMEM_BOOTSTRAP is an environment error") {
  ScopedEnv bootstrap("GSHMEM_BOOTSTRAP", "carrier-pigeon");
  CHECK(gshmem_init() == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(gshmemx_initialized() == 0);
}

TEST_CASE("init without a GPU is a clear error; with one it works") {
  ScopedEnv bootstrap("GSHMEM_BOOTSTRAP", "single");
  ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "64M");
  if (gshmem_test::visible_gpus() == 0) {
    CHECK(gshmem_init() == GSHMEMX_ERROR_NO_DEVICE);
    CHECK(gshmemx_initialized() == 0);
    // Failing leaves nothing half-initialized: the same answer again, not ALREADY_INITIALIZED.
    CHECK(gshmemx_init_attr(GSHMEMX_INIT_SINGLE_PE, nullptr) == GSHMEMX_ERROR_NO_DEVICE);
    CHECK(gshmem_malloc(16) == nullptr);
  } else {
    REQUIRE(gshmem_init() == GSHMEM_SUCCESS);
    CHECK(gshmemx_initialized() == 1);
    CHECK(gshmem_my_pe() == 0);
    CHECK(gshmem_n_pes() == 1);
    CHECK(gshmemi_host_state()->initialized == 1);
    CHECK(gshmem_init() == GSHMEMX_ERROR_ALREADY_INITIALIZED);
    gshmem_finalize();
    CHECK(gshmemx_initialized() == 0);
    CHECK(gshmemi_host_state()->initialized == 0);
    // Single PE owns nothing that cannot restart: a second init works.
    REQUIRE(gshmem_init() == GSHMEM_SUCCESS);
    gshmem_finalize();
  }
}

TEST_CASE("the device translation's reach table follows the mapped heaps") {
  // gshmemi_set_peer_reach: what init publishes beside peer_base (state.h).
  static gshmemi_device_state_t s{};  // static: over 2 KiB
  static char heap0[64], heap2[64];
  s.symmetric_span = 1ull << 40;
  s.peer_base[0] = heap0;
  s.peer_base[2] = heap2;  // PE 1 not mapped (remote or unreachable)
  for (unsigned long long &r : s.peer_reach) r = 7;  // stale values must go
  gshmemi_set_peer_reach(&s);
  CHECK(s.peer_reach[0] == s.symmetric_span);
  CHECK(s.peer_reach[1] == 0);
  CHECK(s.peer_reach[2] == s.symmetric_span);
  for (int pe = 3; pe <= GSHMEMI_MAX_PES; ++pe) {
    INFO("pe " << pe);
    CHECK(s.peer_reach[pe] == 0);
  }
}
