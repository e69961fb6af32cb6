// Helpers of the Catch2 GPU tests: selecting the device gshmem_init would
// pick before any CUDA call creates a context, a runtime scope, and zeroed
// symmetric allocations. Needs catch.hpp (they fail the current test).
#pragma once

#include <gshmem/runtime.h>

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdlib>
#include <initializer_list>

#include "catch.hpp"
#include "test_support.h"

namespace gshmem_test {

// The first of the NULL-terminated `names` set in the environment, as an
// int; `fallback` when none is.
inline int env_int(const char *const *names, int fallback) {
  for (const char *const *n = names; *n; ++n)
    if (const char *v = std::getenv(*n)) return std::atoi(v);
  return fallback;
}

// The process's rank as the launcher numbers it (0 without a launcher).
inline int launcher_rank() {
  static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", nullptr};
  return env_int(names, 0);
}

// The device gshmem_init picks by default (node-local rank modulo visible
// GPUs), selected before any CUDA call creates a context on device 0, which
// init would otherwise keep on every PE.
inline void select_default_device() {
  static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", nullptr};
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return;
  GSHMEM_TEST_CUDA(cudaSetDevice(env_int(names, 0) % count));
}

// gshmem_init once per process, for test binaries whose cases share one
// runtime: the default device is selected first, and the test's own kernels
// are loaded right after init (never lazily behind a wait that is pending on
// a peer). The kernels of the first call count. True when init succeeded.
inline bool init_once(std::initializer_list<const void *> test_kernels) {
  static const int rc = [&] {
    select_default_device();
    const int r = gshmem_init();
    if (r == GSHMEM_SUCCESS) {
      cudaFuncAttributes attr;
      for (const void *kernel : test_kernels) GSHMEM_TEST_CUDA(cudaFuncGetAttributes(&attr, kernel));
    }
    return r;
  }();
  return rc == GSHMEM_SUCCESS;
}

// gshmem_init for the scope of a test case.
struct runtime_scope {
  runtime_scope() { REQUIRE(gshmem_init() == GSHMEM_SUCCESS); }
  ~runtime_scope() { gshmem_finalize(); }
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
