// Init on GPUs under mpirun: PE numbering, device selection, init twice.
#include <cuda_runtime.h>
#include <gshmem/gshmem.h>

#include <cstdlib>
#include <cstring>

#include "catch.hpp"
#include "test_support.h"

TEST_CASE("init, init twice, finalize") {
  gshmem_test::ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "64M");
  REQUIRE(gshmem_init() == GSHMEM_SUCCESS);
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  CHECK(n == gshmem_test::expected_pes());
  REQUIRE(me >= 0);
  REQUIRE(me < n);
  if (const char *ompi = std::getenv("OMPI_COMM_WORLD_RANK")) CHECK(me == std::atoi(ompi));

  // One PE per GPU on this node: PE i got device i (node-local rank modulo GPUs).
  int device = -1;
  GSHMEM_TEST_CUDA(cudaGetDevice(&device));
  CHECK(device == me % gshmem_test::visible_gpus());

  CHECK(gshmem_init() == GSHMEMX_ERROR_ALREADY_INITIALIZED);
  CHECK(gshmemx_init_attr(0, nullptr) == GSHMEMX_ERROR_ALREADY_INITIALIZED);
  CHECK(gshmemx_initialized() == 1);
  CHECK(gshmem_my_pe() == me);  // still usable after the refused second init

  const gshmemi_device_state_t *s = gshmemi_host_state();
  CHECK(s->initialized == 1);
  CHECK(s->my_pe == me);
  CHECK(s->n_pes == n);
  CHECK(s->heap_base != nullptr);
  CHECK(s->peer_base[me] == s->heap_base);
  // The device translation's per-PE reach: the symmetric span for every PE
  // whose heap is mapped here, 0 for the rest and for the entry past the table.
  for (int pe = 0; pe < GSHMEMI_MAX_PES; ++pe) {
    INFO("pe " << pe);
    CHECK(s->peer_reach[pe] == (s->peer_base[pe] != nullptr ? s->symmetric_span : 0ull));
  }
  CHECK(s->peer_reach[me] > 0);
  CHECK(s->peer_reach[GSHMEMI_MAX_PES] == 0);
  CHECK(gshmem_ptr(s->heap_base + GSHMEMI_INTERNAL_REGION_BYTES, me) ==
        s->heap_base + GSHMEMI_INTERNAL_REGION_BYTES);
  int not_symmetric = 0;
  CHECK(gshmem_ptr(&not_symmetric, me) == nullptr);
  CHECK(gshmem_ptr(s->heap_base, n) == nullptr);
  CHECK(gshmem_ptr(s->heap_base, -1) == nullptr);

  gshmemi_host_barrier_all();
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  gshmem_finalize();
  CHECK(gshmemx_initialized() == 0);
  CHECK(gshmem_my_pe() == -1);
  CHECK(gshmemi_host_state()->initialized == 0);
}
