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

// PE 1 sets `name` to `on_pe1`, every other PE to `elsewhere`: init must
// return `expected` on every PE and leave the runtime uninitialized.
void check_init_fails_everywhere(const char *name, const char *on_pe1, const char *elsewhere, int expected) {
  const int rank = launcher_rank();
  REQUIRE(rank >= 0);
  gshmem_test::ScopedEnv env(name, rank == 1 ? on_pe1 : elsewhere);
  CHECK(gshmem_init() == expected);
  CHECK(gshmemx_initialized() == 0);
  CHECK(gshmem_my_pe() == -1);
}
}  // namespace

TEST_CASE("a bad environment on one PE fails init on every PE") {
  check_init_fails_everywhere("GSHMEM_SYMMETRIC_SIZE", "banana", "64M", GSHMEMX_ERROR_ENVIRONMENT);
}

TEST_CASE("PEs that disagree on GSHMEM_COLLECTIVE_LL fail init on every PE") {
  check_init_fails_everywhere("GSHMEM_COLLECTIVE_LL", "1", "0", GSHMEMX_ERROR_INVALID_VALUE);
}

TEST_CASE("PEs that disagree on GSHMEM_COLLECTIVE_LL_THREAD_BYTES fail init on every PE") {
  check_init_fails_everywhere("GSHMEM_COLLECTIVE_LL_THREAD_BYTES", "1K", "512", GSHMEMX_ERROR_INVALID_VALUE);
}
