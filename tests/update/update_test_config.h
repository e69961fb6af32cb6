// Iteration counts of the GPU update tests, in one place. Define
// GSHMEM_UPDATE_TEST_SCALE (a divisor, default 1) to shorten every loop
// proportionally, e.g. -DGSHMEM_UPDATE_TEST_SCALE=100 for a quick run;
// GSHMEM_TEST_ITERATION_DIVISOR does the same at run time.
#pragma once

#include "gpu_test_support.h"

#ifndef GSHMEM_UPDATE_TEST_SCALE
#define GSHMEM_UPDATE_TEST_SCALE 1
#endif

namespace update_test {
constexpr long kScale = GSHMEM_UPDATE_TEST_SCALE;
// `n` / kScale, divided again at run time by GSHMEM_TEST_ITERATION_DIVISOR
// (runs under compute-sanitizer or on a shared GPU), and at least `least`.
inline long scaled(long n, long least) {
  const long v = (long)gshmem_test::scaled_iterations((unsigned long long)(n / kScale));
  return v < least ? least : v;
}
inline long contention_adds_per_pe() { return scaled(1000000, 10000); }  // adds each PE makes to one counter
inline long lock_rounds_per_pe() { return scaled(100000, 4); }          // CAS lock acquisitions per PE
inline long litmus_iterations() { return scaled(1000000, 1); }          // put_signal and fence litmus rounds
inline long barrier_iterations() { return scaled(100000, 1); }          // device barriers in the stress test
inline long wide_iterations() { return scaled(300000, 1); }             // 16-byte writes in the tearing test
}  // namespace update_test
