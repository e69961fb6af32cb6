// Init over the program's OpenSHMEM library on 2 GPUs, started by the
// OpenSHMEM launcher: shmem_init, then gshmem's init with the OpenSHMEM
// bootstrap (gshmem's PEs are OpenSHMEM's), a symmetric allocation, a host
// put to the next PE and a barrier; gshmem_finalize, then shmem_finalize.
// Twice: by gshmem's names with no attr, then NVSHMEM's way
// (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_SHMEM, &attr)) with a heap size.
#include <shmem.h>

#include <nvshmem.h>

#include "catch.hpp"
#include "test_support.h"

namespace {
void check_job() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  CHECK(me == shmem_my_pe());
  CHECK(n == shmem_n_pes());
  int *slot = static_cast<int *>(gshmem_malloc(sizeof(int)));
  REQUIRE(slot);
  gshmem_int_p(slot, 100 + me, (me + 1) % n);  // host put into the next PE's heap
  gshmem_quiet();
  gshmem_barrier_all();
  CHECK(gshmem_int_g(slot, me) == 100 + (me + n - 1) % n);
  gshmem_barrier_all();
  gshmem_free(slot);
}
}  // namespace

TEST_CASE("shmem_init, then gshmem over OpenSHMEM's PEs; finalize both") {
  shmem_init();
  REQUIRE(gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM, nullptr) == GSHMEM_SUCCESS);
  CHECK(gshmemx_initialized() == 1);
  check_job();
  gshmem_finalize();
  CHECK(gshmemx_initialized() == 0);

  // NVSHMEM's example (examples/shmem-based-init.cu), with a heap size.
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  attr.heap_size = 32 << 20;  // below GSHMEM_SYMMETRIC_SIZE (64M in this test's environment)
  REQUIRE(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_SHMEM, &attr) == 0);
  CHECK(gshmemi_host_state()->heap_size >= attr.heap_size);
  CHECK(gshmemi_host_state()->heap_size < (64ull << 20));
  check_job();
  nvshmem_finalize();

  // OpenSHMEM is the program's: still usable after gshmem is done.
  shmem_barrier_all();
  shmem_finalize();
}
