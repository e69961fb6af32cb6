// Error strings and use of the API before init (CPU only).
#include <gshmem/gshmem.h>

#include <cstring>
#include <set>
#include <string>

#include "bootstrap_loader.h"
#include "catch.hpp"

TEST_CASE("every error code has its own string") {
  const int codes[] = {GSHMEM_SUCCESS, GSHMEMX_ERROR_INTERNAL, GSHMEMX_ERROR_INVALID_VALUE,
                       GSHMEMX_ERROR_NOT_INITIALIZED, GSHMEMX_ERROR_ALREADY_INITIALIZED,
                       GSHMEMX_ERROR_NO_DEVICE, GSHMEMX_ERROR_TOO_FEW_DEVICES,
                       GSHMEMX_ERROR_BOOTSTRAP, GSHMEMX_ERROR_OUT_OF_MEMORY,
                       GSHMEMX_ERROR_SYMMETRY, GSHMEMX_ERROR_CUDA, GSHMEMX_ERROR_ENVIRONMENT,
                       GSHMEMX_ERROR_NOT_SUPPORTED, GSHMEMX_ERROR_NOT_SYMMETRIC,
                       GSHMEMX_ERROR_MISALIGNED, GSHMEMX_ERROR_INVALID_STREAM,
                       GSHMEMX_ERROR_INVALID_PE};
  const std::string unknown = gshmemx_error_string(12345);
  std::set<std::string> seen;
  for (int code : codes) {
    INFO("code " << code);
    const char *s = gshmemx_error_string(code);
    REQUIRE(s != nullptr);
    CHECK(std::strlen(s) > 3);
    CHECK(s != unknown);
    CHECK(seen.insert(s).second);
  }
  CHECK(unknown.find("unknown") != std::string::npos);
}

TEST_CASE("calls before init fail clearly instead of crashing") {
  REQUIRE(gshmemx_initialized() == 0);
  CHECK(gshmem_my_pe() == -1);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_n_pes() == -1);
  int x = 0;
  CHECK(gshmem_ptr(&x, 0) == nullptr);
  CHECK(gshmem_malloc(64) == nullptr);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_calloc(4, 16) == nullptr);
  CHECK(gshmem_align(4096, 64) == nullptr);
  gshmem_free(&x);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_buffer_register_symmetric(&x, 4096, 0) == nullptr);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_buffer_register_symmetric(nullptr, 0, 1) == nullptr);  // no argument is looked at before init
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_buffer_unregister_symmetric(&x, 4096) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  gshmemx_remote_stats_t stats;
  std::memset(&stats, 0xff, sizeof stats);
  CHECK(gshmemx_remote_stats(&stats) == GSHMEM_SUCCESS);  // no proxy: every field 0
  CHECK(stats.active == 0);
  CHECK(stats.requests == 0);
  CHECK(stats.quiet_ns == 0);
  CHECK(stats.apply_ns == 0);
  CHECK(stats.transport_puts == 0);
  CHECK(stats.puts_coalesced == 0);
  CHECK(stats.reserved[0] == 0);
  CHECK(stats.reserved[2] == 0);
  CHECK(stats.put_runs == 0);
  CHECK(gshmemx_remote_stats(nullptr) == GSHMEMX_ERROR_INVALID_VALUE);
  gshmemi_host_barrier_all();
  gshmemi_host_sync_all();
  gshmemi_host_quiet();
  gshmemi_host_fence();
  gshmem_finalize();
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemi_host_state()->initialized == 0);
}

TEST_CASE("bad init arguments and a missing plugin are errors") {
  gshmemx_init_attr_t attr{};
  CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM | GSHMEMX_INIT_WITH_UNIQUEID, &attr) ==
        GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM, nullptr) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM, &attr) == GSHMEMX_ERROR_INVALID_VALUE);
  attr.rank = 3;
  attr.nranks = 2;
  CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_init_attr(1u << 20, &attr) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_initialized() == 0);

  std::unique_ptr<gshmemi::Bootstrap> boot;
  CHECK(gshmemi::open_bootstrap_plugin("no_such_module", 0, nullptr, &boot) ==
        GSHMEMX_ERROR_BOOTSTRAP);
  CHECK(boot == nullptr);
}
