// The LL collectives' GPU stress test: kernels (team_ll_gpu_*.cu,
// team_ll_reduce_gpu_{a,b}.cu) and the
// host checks (test_team_ll_gpu.cpp).
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/types.h>

#include <cuda_runtime.h>
#include <stddef.h>

enum { ll_kind_broadcast = 0, ll_kind_fcollect = 1, ll_kind_alltoall = 2 };

struct ll_stress_args {
  int teams[4];
  int nteams;
  int calls;
  int only_kind;  // -1: cycle through the three
  int only_form;  // -1: cycle through thread, warp, block; 3 (reductions): warp on even PEs, block on odd
  size_t nelems[32];
  int n_nelems;
  int salt;
  unsigned char *src;  // symmetric, at least ll_stress_buffer_bytes
  unsigned char *dst;  // local is enough; symmetric for the two-sync path's alltoall
};

struct ll_stress_result {
  unsigned long long errors;
  unsigned long long calls_done;
  int call, kind;
  unsigned long long offset;  // ~0: a nonzero return code (got); ~1: the guard before dest
  unsigned expected, got;
};

#define TEAM_LL_DECLARE(NAME, TYPE) \
  cudaError_t launch_ll_stress_##NAME(const ll_stress_args &a, ll_stress_result *out, cudaStream_t s);
GSHMEM_FOR_EACH_RMA_TYPE(TEAM_LL_DECLARE)
#undef TEAM_LL_DECLARE
cudaError_t launch_ll_stress_mem(const ll_stress_args &a, ll_stress_result *out, cudaStream_t s);

// The reductions' stress: contribution of member `r` at element index j of
// its source in call c, 1..13 (the kernels fill the sources with it and
// check against it; the host reads the push area against it).
GSHMEM_HD_CONSTEXPR int ll_contribution(int call, int r, size_t j) {
  return (int)((call * 3 + r * 7 + (int)(j % 8191) * 5) % 13) + 1;
}

// The reductions' stress kernels (team_ll_reduce_gpu_{a,b,c,d}.cu): type and operator.
#define LL_REDUCE_STRESS_CASES_A(X) X(int, sum) X(longlong, max)
#define LL_REDUCE_STRESS_CASES_B(X) X(short, sum) X(uint8, xor)
#define LL_REDUCE_STRESS_CASES_C(X) X(half, sum) X(bfloat16, sum)
#define LL_REDUCE_STRESS_CASES_D(X) X(double, sum) X(float, max)
#define LL_REDUCE_STRESS_CASES(X) \
  LL_REDUCE_STRESS_CASES_A(X) LL_REDUCE_STRESS_CASES_B(X) LL_REDUCE_STRESS_CASES_C(X) LL_REDUCE_STRESS_CASES_D(X)
#define LL_REDUCE_DECLARE(NAME, OP) \
  cudaError_t launch_ll_reduce_stress_##NAME##_##OP(const ll_stress_args &a, ll_stress_result *out, cudaStream_t s);
LL_REDUCE_STRESS_CASES(LL_REDUCE_DECLARE)
#undef LL_REDUCE_DECLARE
