// The same one-thread _any scans as scan_sass_kernel.cu, compiled with
// GSHMEM_WAIT_SCAN_LOADS=32 (the wide choice), for the SASS check in
// check_scan_sass.cmake: 32 strong loads in flight per batch of 8-byte
// elements, and, for 4-byte elements, 64. Not launched: such a kernel
// needs more registers than a 1024-thread block allows
// (docs/performance.md gives the block size it does launch with).
#define GSHMEM_WAIT_SCAN_LOADS 32
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

// 4-byte elements: 64 loads per batch.
__global__ void scan_sass_wait_until_any_u32(uint32_t *ivars, size_t n, uint32_t *ack, size_t *out, uint32_t iters) {
  for (uint32_t i = 1; i <= iters; ++i) {
    out[i & 7] = gshmem_uint32_wait_until_any(ivars, n, nullptr, GSHMEM_CMP_GE, i);
    *(volatile uint32_t *)ack = i;
  }
}

// A status array and a run-time comparison, the register peak of the
// launch test's _any kernel (tests/launch), with the wide choice.
__global__ void scan_sass_wait_until_any_status(uint64_t *ivars, size_t n, const int *status, int cmp,
                                                uint64_t *ack, size_t *out, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    out[i & 7] = gshmem_uint64_wait_until_any(ivars, n, status, cmp, i);
    *(volatile uint64_t *)ack = i;
  }
}
