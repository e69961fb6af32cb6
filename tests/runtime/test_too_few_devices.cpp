// More PEs on a node than GPUs: every PE gets GSHMEMX_ERROR_TOO_FEW_DEVICES
// (never a hang), unless GSHMEM_ALLOW_GPU_SHARING=1, when init succeeds.
// CTest runs it with 3 PEs and CUDA_VISIBLE_DEVICES=0,1.
#include <gshmem/gshmem.h>

#include <cstdlib>
#include <cstring>

#include "catch.hpp"
#include "test_support.h"

TEST_CASE("3 PEs on 2 GPUs") {
  REQUIRE(gshmem_test::visible_gpus() < 3);
  const char *sharing = std::getenv("GSHMEM_ALLOW_GPU_SHARING");
  gshmem_test::ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "64M");
  if (sharing && std::strcmp(sharing, "1") == 0) {
    REQUIRE(gshmem_init() == GSHMEM_SUCCESS);
    CHECK(gshmem_n_pes() == 3);
    gshmemi_host_barrier_all();
    gshmem_finalize();
  } else {
    CHECK(gshmem_init() == GSHMEMX_ERROR_TOO_FEW_DEVICES);
    CHECK(gshmemx_initialized() == 0);
  }
}
