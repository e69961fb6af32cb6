// A PE that dies during init must not leave the others hanging: PE 1 exits
// at once while PE 0 enters gshmem_init. The launcher sees the dead process
// and ends the job; this test is registered WILL_FAIL with a short timeout,
// so it passes only if the job ends, non-zero, in time (a hang times out and
// fails).
#include <gshmem/gshmem.h>

#include <cstdio>
#include <cstdlib>

#include "catch.hpp"

static int launcher_rank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char *v = std::getenv(name)) return std::atoi(v);
  return -1;
}

TEST_CASE("a PE that exits during init ends the job instead of hanging it") {
  const int rank = launcher_rank();
  REQUIRE(rank >= 0);
  if (rank == 1) {
    std::fprintf(stderr, "PE 1: exiting during init on purpose\n");
    std::_Exit(3);
  }
  // PE 0 blocks in the bootstrap's first exchange until the launcher ends it;
  // should init return instead, it must report an error.
  const int rc = gshmem_init();
  CHECK(rc != GSHMEM_SUCCESS);
}
