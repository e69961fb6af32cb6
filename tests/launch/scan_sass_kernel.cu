// One-thread _any scans as the perftest's waiter calls them (in a loop, one
// comparison value, 8-byte elements), compiled for the SASS check in
// check_scan_sass.cmake: how many strong loads one batch keeps in flight.
#include <gshmem/gshmem.h>

__global__ void scan_sass_wait_until_any(uint64_t *ivars, size_t n, uint64_t *ack, size_t *out, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    out[i & 7] = gshmem_uint64_wait_until_any(ivars, n, nullptr, GSHMEM_CMP_GE, i);
    *(volatile uint64_t *)ack = i;
  }
}

__global__ void scan_sass_test_any(uint64_t *ivars, size_t n, size_t *out, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    size_t r;
    while ((r = gshmem_uint64_test_any(ivars, n, nullptr, GSHMEM_CMP_GE, i)) == SIZE_MAX) {
    }
    out[i & 7] = r;
  }
}
