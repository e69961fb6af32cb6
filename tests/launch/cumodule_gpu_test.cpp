// gshmemx_cumodule_init / _finalize on modules the driver API loads (what
// gshmem.triton does for Triton's kernels): a cubin whose gshmem device code
// was compiled with GSHMEMI_STATE_EXPORTED reads the runtime state only once
// the module is set up; the state follows gshmem_init and gshmem_finalize
// (set up before init, the module sees the state after it); a module
// without the state, a NULL module and a finalize of a module never set up
// are refused with GSHMEMX_ERROR_INVALID_VALUE. One PE, no launcher.
#include "catch.hpp"
#include "gpu_test_support.h"

#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include <array>

#ifndef CUMODULE_CUBIN
#error "CUMODULE_CUBIN (the cubin with the exported state) must be defined by the build"
#endif

namespace {

// Driver API calls through the runtime's entry points, as libgshmem makes
// them: the test binary does not link libcuda (it loads, and skips, where
// there is no driver).
template <class Fn>
Fn driver(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  REQUIRE(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) == cudaSuccess);
#else
  REQUIRE(cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &found) == cudaSuccess);
#endif
  REQUIRE(found == cudaDriverEntryPointSuccess);
  return reinterpret_cast<Fn>(fn);
}

struct loaded_module {
  CUmodule module = nullptr;
  CUfunction read_state = nullptr;
  explicit loaded_module(const char *path) {
    GSHMEM_TEST_CUDA(cudaSetDevice(0));
    GSHMEM_TEST_CUDA(cudaFree(nullptr));  // the primary context, current
    REQUIRE(driver<CUresult (*)(CUmodule *, const char *)>("cuModuleLoad")(&module, path) == CUDA_SUCCESS);
    REQUIRE(driver<CUresult (*)(CUfunction *, CUmodule, const char *)>("cuModuleGetFunction")(
                &read_state, module, "read_state") == CUDA_SUCCESS);
  }
  ~loaded_module() { driver<CUresult (*)(CUmodule)>("cuModuleUnload")(module); }
  loaded_module(const loaded_module &) = delete;
  loaded_module &operator=(const loaded_module &) = delete;

  // initialized, my_pe, n_pes, gshmem_ptr(symmetric, 0), as the module sees them.
  std::array<long long, 4> read(const void *symmetric) {
    long long *out = nullptr;
    GSHMEM_TEST_CUDA(cudaMalloc(&out, 4 * sizeof(long long)));
    GSHMEM_TEST_CUDA(cudaMemset(out, 0xff, 4 * sizeof(long long)));
    void *args[] = {&out, &symmetric};
    using launch_fn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   CUstream, void **, void **);
    REQUIRE(driver<launch_fn>("cuLaunchKernel")(read_state, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr) ==
            CUDA_SUCCESS);
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    std::array<long long, 4> host{};
    GSHMEM_TEST_CUDA(cudaMemcpy(host.data(), out, sizeof(host), cudaMemcpyDeviceToHost));
    GSHMEM_TEST_CUDA(cudaFree(out));
    return host;
  }
};

}  // namespace

TEST_CASE("a driver-loaded module reads the state gshmemx_cumodule_init gives it", "[launch][gpu]") {
  loaded_module m(CUMODULE_CUBIN);
  REQUIRE(gshmemi_cumodule_has_state(m.module) == 1);
  // Set up before init: the zeroed state now, the runtime's after init.
  REQUIRE(gshmemx_cumodule_init(m.module) == GSHMEM_SUCCESS);
  CHECK(m.read(nullptr)[0] == 0);
  {
    gshmem_test::runtime_scope rt;
    void *symmetric = gshmem_malloc(64);
    REQUIRE(symmetric != nullptr);
    const std::array<long long, 4> s = m.read(symmetric);
    CHECK(s[0] == 1);
    CHECK(s[1] == gshmem_my_pe());
    CHECK(s[2] == gshmem_n_pes());
    CHECK(s[3] == (long long)(uintptr_t)gshmem_ptr(symmetric, 0));
    CHECK(s[3] != 0);
    // Set up again while initialized: the state at once, no error.
    REQUIRE(gshmemx_cumodule_init(m.module) == GSHMEM_SUCCESS);
    CHECK(m.read(symmetric)[2] == gshmem_n_pes());
    gshmem_free(symmetric);
  }
  // After finalize the runtime published its zeroed state to the module too.
  CHECK(m.read(nullptr)[0] == 0);
  CHECK(gshmemx_cumodule_finalize(m.module) == GSHMEM_SUCCESS);
  CHECK(gshmemx_cumodule_finalize(m.module) == GSHMEMX_ERROR_INVALID_VALUE);
}

TEST_CASE("gshmemx_cumodule_init refuses a module without the state", "[launch][gpu]") {
  loaded_module m(CUMODULE_NO_STATE_CUBIN);
  CHECK(gshmemi_cumodule_has_state(m.module) == 0);
  CHECK(gshmemx_cumodule_init(m.module) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_cumodule_init(nullptr) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_cumodule_finalize(m.module) == GSHMEMX_ERROR_INVALID_VALUE);
}
