// Every device routine launches in a 1024-thread block (launch_cases.h):
// for each kernel of launch_kernels.cu and launch_compat_kernels.cu,
// cudaFuncGetAttributes reports at most 64 registers and a 1024-thread
// limit, the kernel launches with 1024 threads on one PE (the runtime
// started without a launcher; every remote target is the PE itself), and
// the routine did what it promises.
#include "catch.hpp"
#include "gpu_test_support.h"
#include "launch_cases.h"

#include <gshmem/runtime.h>

#include <cuda_runtime.h>

#include <memory>
#include <set>
#include <string>

using namespace launch_test;

TEST_CASE("the launch kernels are registered once each", "[launch][gpu]") {
  REQUIRE(cases().size() >= 100);
  std::set<std::string> names;
  for (const launch_case &c : cases()) {
    INFO(c.name);
    CHECK(names.insert(c.name).second);
    CHECK(c.kernel != nullptr);
    CHECK(c.check != nullptr);
  }
}

TEST_CASE("every device routine launches in a 1024-thread block", "[launch][gpu]") {
  gshmem_test::runtime_scope rt;
  const int pe = gshmem_my_pe();
  arena *device_arena = static_cast<arena *>(gshmem_malloc(sizeof(arena)));
  REQUIRE(device_arena != nullptr);
  std::unique_ptr<arena> host(new arena);
  int failed_launches = 0;
  for (const launch_case &c : cases()) {
    INFO("kernel " << c.name);
    cudaFuncAttributes attr{};
    REQUIRE(cudaFuncGetAttributes(&attr, c.kernel) == cudaSuccess);
    INFO("registers per thread " << attr.numRegs << ", max threads per block " << attr.maxThreadsPerBlock
                                 << ", local bytes " << attr.localSizeBytes);
    CHECK(attr.numRegs <= 64);
    CHECK(attr.maxThreadsPerBlock >= kThreads);

    initial_arena(host.get());
    GSHMEM_TEST_CUDA(cudaMemcpy(device_arena, host.get(), sizeof(arena), cudaMemcpyHostToDevice));
    const cudaError_t launched = launch(c, device_arena, pe);
    INFO("launch: " << cudaGetErrorString(launched));
    CHECK(launched == cudaSuccess);
    if (launched != cudaSuccess) {
      ++failed_launches;
      continue;
    }
    // A routine that traps ends the context: nothing after it could run.
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    GSHMEM_TEST_CUDA(cudaMemcpy(host.get(), device_arena, sizeof(arena), cudaMemcpyDeviceToHost));
    CHECK(c.check(*host) == "");
  }
  CHECK(failed_launches == 0);
  gshmem_free(device_arena);
}
