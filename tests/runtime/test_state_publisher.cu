// The device state reaches a kernel in an ordinary .cu file compiled without
// -rdc: this unit's __constant__ copy is filled at init and zeroed at finalize.
#include <gshmem/gshmem.h>

#include <cstdlib>

#include "catch.hpp"
#include "test_support.h"

namespace {

struct Seen {
  int my_pe, n_pes, initialized;
  unsigned long long wait_timeout_ns;
  char *heap_base;
  char *ptr_to_self;
};

__global__ void read_state(Seen *out) {
  out->my_pe = gshmem_my_pe();
  out->n_pes = gshmem_n_pes();
  out->initialized = gshmemi_state().initialized;
  out->wait_timeout_ns = gshmemi_state().wait_timeout_ns;
  out->heap_base = gshmemi_state().heap_base;
  char *user = gshmemi_state().heap_base + GSHMEMI_INTERNAL_REGION_BYTES;
  out->ptr_to_self = static_cast<char *>(gshmem_ptr(user, gshmem_my_pe()));
}

Seen run_kernel() {
  Seen *d = nullptr;
  Seen h{};
  if (cudaMalloc(&d, sizeof(Seen)) != cudaSuccess) return Seen{-7, -7, -7, 0, nullptr, nullptr};
  cudaMemset(d, 0xff, sizeof(Seen));
  read_state<<<1, 1>>>(d);
  cudaMemcpy(&h, d, sizeof(Seen), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return h;
}

}  // namespace

TEST_CASE("a kernel without -rdc sees my_pe, n_pes and the heap") {
  gshmem_test::ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "64M");
  gshmem_test::ScopedEnv timeout("GSHMEM_WAIT_TIMEOUT", "2.5");  // read by init, published to the device
  REQUIRE(gshmem_init() == GSHMEM_SUCCESS);
  const Seen seen = run_kernel();
  GSHMEM_TEST_CUDA(cudaGetLastError());
  CHECK(seen.my_pe == gshmem_my_pe());
  CHECK(seen.n_pes == gshmem_n_pes());
  CHECK(seen.n_pes == gshmem_test::expected_pes());
  CHECK(seen.initialized == 1);
  CHECK(seen.wait_timeout_ns == 2500000000ull);  // GSHMEM_WAIT_TIMEOUT=2.5 above
  CHECK(seen.heap_base == gshmemi_host_state()->heap_base);
  CHECK(seen.ptr_to_self == gshmemi_host_state()->heap_base + GSHMEMI_INTERNAL_REGION_BYTES);
  gshmemi_host_barrier_all();
  gshmem_finalize();
  const Seen after = run_kernel();
  CHECK(after.initialized == 0);
  CHECK(after.n_pes == 0);
}
