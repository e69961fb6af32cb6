// One-thread _any and _some scans as the perftest's waiter calls them (in a
// loop, one comparison value, 8-byte elements), compiled for the SASS check
// in check_scan_sass.cmake: how many strong loads one batch keeps in flight,
// how many compares follow them, and nothing else in the batch. Compiled
// twice (tests/launch/CMakeLists.txt): as is, and with
// GSHMEM_WAIT_SCAN_LOADS=32 (the wide choice), whose _any kernels need more
// registers than a 1024-thread block allows (not launched; docs/performance.md
// gives the block size it does launch with).
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

#if GSHMEM_WAIT_SCAN_LOADS == 16  // the default build: the _some scans too
// One-thread _some, one comparison value: 16 loads of 8 bytes per batch
// (kOneValueScanRegisters in sync_group.h; 12 before, 2.4x slower than 32
// on a random producer), compared with one 64-bit compare per element.
__global__ void scan_sass_wait_until_some(uint64_t *ivars, size_t n, size_t *indices, uint64_t *ack, size_t *out,
                                          uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    out[i & 7] = gshmem_uint64_wait_until_some(ivars, n, indices, nullptr, GSHMEM_CMP_GE, i);
    *(volatile uint64_t *)ack = i;
  }
}

__global__ void scan_sass_test_some(uint64_t *ivars, size_t n, size_t *indices, size_t *out, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    size_t r;
    while ((r = gshmem_uint64_test_some(ivars, n, indices, nullptr, GSHMEM_CMP_GE, i)) == 0) {
    }
    out[i & 7] = r;
  }
}
#else  // the wide build: the _any scans at their register peak
// 4-byte elements: 64 loads per batch with the wide choice.
__global__ void scan_sass_wait_until_any_u32(uint32_t *ivars, size_t n, uint32_t *ack, size_t *out, uint32_t iters) {
  for (uint32_t i = 1; i <= iters; ++i) {
    out[i & 7] = gshmem_uint32_wait_until_any(ivars, n, nullptr, GSHMEM_CMP_GE, i);
    *(volatile uint32_t *)ack = i;
  }
}

// A status array and a run-time comparison, the register peak of the
// launch test's _any kernel (tests/launch).
__global__ void scan_sass_wait_until_any_status(uint64_t *ivars, size_t n, const int *status, int cmp,
                                                uint64_t *ack, size_t *out, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    out[i & 7] = gshmem_uint64_wait_until_any(ivars, n, status, cmp, i);
    *(volatile uint64_t *)ack = i;
  }
}
#endif
