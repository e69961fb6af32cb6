// Two PEs of one node that both made GPU 0 current before init (any CUDA
// call that creates a context does) must not silently share it: every PE gets
// GSHMEMX_ERROR_TOO_FEW_DEVICES, unless GSHMEM_ALLOW_GPU_SHARING=1.
#include <gshmem/gshmem.h>

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

#include "catch.hpp"
#include "test_support.h"

TEST_CASE("PEs that chose the same GPU before init") {
  GSHMEM_TEST_CUDA(cudaSetDevice(0));
  GSHMEM_TEST_CUDA(cudaFree(nullptr));  // a context on GPU 0 in every process
  gshmem_test::ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "64M");
  const char *sharing = std::getenv("GSHMEM_ALLOW_GPU_SHARING");
  if (sharing && std::strcmp(sharing, "1") == 0) {
    REQUIRE(gshmem_init() == GSHMEM_SUCCESS);
    gshmemi_host_barrier_all();
    gshmem_finalize();
  } else {
    CHECK(gshmem_init() == GSHMEMX_ERROR_TOO_FEW_DEVICES);
    CHECK(gshmemx_initialized() == 0);
  }
}
