// GPU tests (2 and 4 PEs, one GPU each) of the device barrier forms, teams,
// collective launch and the small collectives. Kernels: team_gpu_*.cu (see
// team_gpu_kernels.h).
#include <gshmem/gshmemx.h>

#include <cuda_runtime.h>
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "team_gpu_kernels.h"
#include "test_support.h"

using namespace team_gpu;

namespace {

struct runtime_scope {
  runtime_scope() { REQUIRE(gshmem_init() == GSHMEM_SUCCESS); }
  ~runtime_scope() { gshmem_finalize(); }
};

template <class T>
T *sym_zeroed(size_t count) {
  T *p = (T *)gshmem_malloc(count * sizeof(T));
  REQUIRE(p != nullptr);
  GSHMEM_TEST_CUDA(cudaMemset(p, 0, count * sizeof(T)));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  return p;
}

struct managed_counter {
  unsigned long long *value = nullptr;
  managed_counter() {
    GSHMEM_TEST_CUDA(cudaMallocManaged(&value, sizeof(unsigned long long)));
    *value = 0;
  }
  ~managed_counter() { cudaFree(value); }
};

constexpr long kBarrierRounds = 20000;

}  // namespace

TEST_CASE("device barrier: one thread, a warp, a block; data stored before it is seen after it",
          "[team][barrier][gpu]") {
  runtime_scope rt;
  const int n = gshmem_n_pes();
  REQUIRE(n >= 2);
  const struct {
    barrier_form form;
    const char *name;
  } forms[] = {{form_thread, "thread"}, {form_warp, "warp"}, {form_block, "block"}, {form_mixed, "mixed"}};
  for (const auto &f : forms) {
    for (bool with_quiet : {true, false}) {
      INFO("form " << f.name << (with_quiet ? ", barrier_all" : ", sync_all") << ", PE " << gshmem_my_pe());
      uint64_t *slots = sym_zeroed<uint64_t>(2 * (size_t)n);
      managed_counter violations;
      gshmem_barrier_all();
      GSHMEM_TEST_CUDA(launch_barrier_litmus(slots, kBarrierRounds, f.form, with_quiet, 128, violations.value));
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      CHECK(*violations.value == 0);
      gshmem_barrier_all();
      gshmem_free(slots);
    }
  }
}
