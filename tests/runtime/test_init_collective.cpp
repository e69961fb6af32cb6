// A PE that fails during init must not leave its peers waiting: here PE 1
// has a bad GSHMEM_SYMMETRIC_SIZE, or a GSHMEM_COLLECTIVE_LL or
// GSHMEM_COLLECTIVE_LL_THREAD_BYTES that PE 0 does not share, and every PE returns the error (CPU, under mpirun; the failure
// happens before any GPU is needed).
#include <gshmem/gshmem.h>

#include <cstdlib>

#include "catch.hpp"
#include "test_support.h"

namespace {
int launcher_rank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char *v = std::getenv(name)) return std::atoi(v);
  return -1;
}
}  // namespace

TEST_CASE("a bad environment on one PE fails init on every PE") {
  const int rank = launcher_rank();
  REQUIRE(rank >= 0);
  gshmem_test::ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", rank == 1 ? "banana" : "64M");
  CHECK(gshmem_init() == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(gshmemx_initialized() == 0);
  CHECK(gshmem_my_pe() == -1);
}

TEST_CASE("PEs that disagree on GSHMEM_COLLECTIVE_LL fail init on every PE") {
  const int rank = launcher_rank();
  REQUIRE(rank >= 0);
  gshmem_test::ScopedEnv ll("GSHMEM_COLLECTIVE_LL", rank == 1 ? "1" : "0");
  CHECK(gshmem_init() == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_initialized() == 0);
  CHECK(gshmem_my_pe() == -1);
}

TEST_CASE("PEs that disagree on GSHMEM_COLLECTIVE_LL_THREAD_BYTES fail init on every PE") {
  const int rank = launcher_rank();
  REQUIRE(rank >= 0);
  gshmem_test::ScopedEnv bytes("GSHMEM_COLLECTIVE_LL_THREAD_BYTES", rank == 1 ? "1K" : "512");
  CHECK(gshmem_init() == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_initialized() == 0);
  CHECK(gshmem_my_pe() == -1);
}
