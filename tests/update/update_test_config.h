// Iteration counts of the GPU update tests, in one place. Define
// GSHMEM_UPDATE_TEST_SCALE (a divisor, default 1) to shorten every loop
// proportionally, e.g. -DGSHMEM_UPDATE_TEST_SCALE=100 for a quick run.
#pragma once

#ifndef GSHMEM_UPDATE_TEST_SCALE
#define GSHMEM_UPDATE_TEST_SCALE 1
#endif

namespace update_test {
constexpr long kScale = GSHMEM_UPDATE_TEST_SCALE;
constexpr long kContentionAddsPerPe = 1000000 / kScale;  // adds each PE makes to one counter
constexpr long kLockRoundsPerPe = 100000 / kScale;       // CAS lock acquisitions per PE
constexpr long kLitmusIterations = 1000000 / kScale;     // put_signal and fence litmus rounds
constexpr long kBarrierIterations = 100000 / kScale;     // device barriers in the stress test
constexpr long kWideIterations = 300000 / kScale;        // 16-byte writes in the tearing test
}  // namespace update_test
