// And/or/xor reductions and reducescatter on the device through their public
// C names, in every form (see team_gpu_kernels.h): the kernels and launchers
// of the types TEAM_GPU_PART_BITWISE_TYPES and TEAM_GPU_PART_ARITH_TYPES,
// which the including source defines. Three sources (team_gpu_reductions_*.cu)
// share the types out: every type x operator x form inlines a whole
// reduction with its remote form, and one source with all of them took
// nvcc's front end more than 4 minutes, the longest step of the build.
#pragma once
#include "team_gpu_kernels.h"

#include <gshmem/gshmemx.h>

namespace team_gpu {
namespace {

// Every operator of a type: sum/prod/max/min, and and/or/xor for the
// bitwise types (the lists of <gshmem/types.h>).
#define TEAM_GPU_ALL_OPS(X, NAME, TYPE) \
  GSHMEM_FOR_EACH_REDUCE_OP(X, NAME, TYPE) GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(X, NAME, TYPE)

#define TEAM_GPU_CASE_THREAD(NAME, TYPE, OP)                                                              \
  case op_##OP:                                                                                           \
    status = kind == kind_reduce ? gshmem_##NAME##_##OP##_reduce(team, dest, source, n)                   \
                                 : gshmem_##NAME##_##OP##_reducescatter(team, dest, source, n);           \
    break;
#define TEAM_GPU_CASE_WARP(NAME, TYPE, OP)                                                                \
  case op_##OP:                                                                                           \
    status = kind == kind_reduce ? gshmemx_##NAME##_##OP##_reduce_warp(team, dest, source, n)             \
                                 : gshmemx_##NAME##_##OP##_reducescatter_warp(team, dest, source, n);     \
    break;
#define TEAM_GPU_CASE_BLOCK(NAME, TYPE, OP)                                                               \
  case op_##OP:                                                                                           \
    if (kind == kind_reduce)                                                                              \
      status = gshmemx_##NAME##_##OP##_reduce_block(team, dest, source, n);                               \
    else                                                                                                  \
      status = gshmemx_##NAME##_##OP##_reducescatter_block(team, dest, source, n);                        \
    break;

#define TEAM_GPU_REDUCTION_KERNEL(NAME, TYPE, FOR_EACH_OP)                                                \
  __global__ void reduction_kernel_##NAME(int team, int op, int kind, int form, TYPE *dest,              \
                                          const TYPE *source, size_t n, int *rc) {                       \
    int status = -7;                                                                                      \
    if (form == form_thread) {                                                                            \
      if (threadIdx.x == 0) {                                                                             \
        switch (op) {                                                                                     \
          FOR_EACH_OP(TEAM_GPU_CASE_THREAD, NAME, TYPE)                                                   \
          default: break;                                                                                 \
        }                                                                                                 \
      }                                                                                                   \
    } else if (form == form_warp) {                                                                       \
      if (threadIdx.x < 32) {                                                                             \
        switch (op) {                                                                                     \
          FOR_EACH_OP(TEAM_GPU_CASE_WARP, NAME, TYPE)                                                     \
          default: break;                                                                                 \
        }                                                                                                 \
      }                                                                                                   \
    } else {                                                                                              \
      switch (op) {                                                                                       \
        FOR_EACH_OP(TEAM_GPU_CASE_BLOCK, NAME, TYPE)                                                      \
        default: break;                                                                                   \
      }                                                                                                   \
    }                                                                                                     \
    if (threadIdx.x == 0) *rc = status;                                                                   \
  }
#define TEAM_GPU_BITWISE_KERNEL(NAME, TYPE) TEAM_GPU_REDUCTION_KERNEL(NAME, TYPE, TEAM_GPU_ALL_OPS)
#define TEAM_GPU_ARITH_KERNEL(NAME, TYPE) TEAM_GPU_REDUCTION_KERNEL(NAME, TYPE, GSHMEM_FOR_EACH_REDUCE_OP)
TEAM_GPU_PART_BITWISE_TYPES(TEAM_GPU_BITWISE_KERNEL)
TEAM_GPU_PART_ARITH_TYPES(TEAM_GPU_ARITH_KERNEL)
#undef TEAM_GPU_ARITH_KERNEL
#undef TEAM_GPU_BITWISE_KERNEL
#undef TEAM_GPU_REDUCTION_KERNEL
#undef TEAM_GPU_CASE_BLOCK
#undef TEAM_GPU_CASE_WARP
#undef TEAM_GPU_CASE_THREAD
#undef TEAM_GPU_ALL_OPS

}  // namespace

#define TEAM_GPU_REDUCTION_LAUNCHER(NAME, TYPE)                                                           \
  cudaError_t launch_reduction_##NAME(int team, int op, int kind, barrier_form form, TYPE *dest,         \
                                      const TYPE *source, size_t n, int *rc) {                           \
    reduction_kernel_##NAME<<<1, 128>>>(team, op, kind, (int)form, dest, source, n, rc);                 \
    return cudaGetLastError();                                                                            \
  }
TEAM_GPU_PART_BITWISE_TYPES(TEAM_GPU_REDUCTION_LAUNCHER)
TEAM_GPU_PART_ARITH_TYPES(TEAM_GPU_REDUCTION_LAUNCHER)
#undef TEAM_GPU_REDUCTION_LAUNCHER

}  // namespace team_gpu
