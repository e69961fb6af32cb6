// Helpers of the Catch2 GPU tests: selecting the device gshmem_init would
// pick before any CUDA call creates a context, a runtime scope, and zeroed
// symmetric allocations. Needs catch.hpp (they fail the current test).
// The functions are defined in gpu_test_support.cpp, compiled once by the
// host compiler, so the CUDA sources that include this header only see
// declarations.
#pragma once

#include <gshmem/runtime.h>

#include <cuda_runtime.h>
#include <cstddef>
#include <initializer_list>

#include "catch.hpp"
#include "test_support.h"

namespace gshmem_test {

// The first of the NULL-terminated `names` set in the environment, as an
// int; `fallback` when none is.
int env_int(const char *const *names, int fallback);

// The process's rank as the launcher numbers it (0 without a launcher).
int launcher_rank();

// The device gshmem_init picks by default (node-local rank modulo visible
// GPUs), selected before any CUDA call creates a context on device 0, which
// init would otherwise keep on every PE.
void select_default_device();

// How many PEs of this node use this PE's GPU under that default (1 unless
// there are fewer GPUs than PEs, as in GSHMEM_TEST_SHARE_GPUS mode), counted
// from the launcher's node-local rank and size.
int pes_on_this_gpu();

// `n` divided by GSHMEM_TEST_ITERATION_DIVISOR (default 1), at least 1:
// stress tests scale their iteration counts with it so that a run under
// compute-sanitizer (tens of times slower) ends in bounded time.
unsigned long long scaled_iterations(unsigned long long n);

// gshmem_init once per process, for test binaries whose cases share one
// runtime: the default device is selected first, and the test's own kernels
// are loaded right after init (never lazily behind a wait that is pending on
// a peer). The kernels of the first call count. True when init succeeded.
bool init_once(std::initializer_list<const void *> test_kernels);

// gshmem_init for the scope of a test case.
struct runtime_scope {
  runtime_scope();
  ~runtime_scope();
  runtime_scope(const runtime_scope &) = delete;
  runtime_scope &operator=(const runtime_scope &) = delete;
};

// A collective allocation of `count` zeroed T.
template <class T>
T *sym_zeroed(std::size_t count) {
  T *p = static_cast<T *>(gshmem_malloc(count * sizeof(T)));
  REQUIRE(p != nullptr);
  GSHMEM_TEST_CUDA(cudaMemset(p, 0, count * sizeof(T)));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  return p;
}

}  // namespace gshmem_test
