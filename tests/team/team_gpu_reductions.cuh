// And/or/xor reductions and reducescatter on the device through their public
// C names, in every form (see team_gpu_kernels.h): the kernels and launchers
// of the types TEAM_GPU_PART_BITWISE_TYPES and TEAM_GPU_PART_ARITH_TYPES,
// which the including source defines. Six sources (team_gpu_reductions_*.cu)
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

// One kernel per type and operator (not one per type with a switch over
// the operators): each reduction inlines in full, and a kernel that holds
// every operator's took the compiler minutes (its time grows faster than
// the kernel's length).
#define TEAM_GPU_OP_KERNEL(NAME, TYPE, OP)                                                                \
  __global__ void reduction_kernel_##NAME##_##OP(int team, int kind, int form, TYPE *dest,               \
                                                 const TYPE *source, size_t n, int *rc) {                \
    int status = -7;                                                                                      \
    if (form == form_thread) {                                                                            \
      if (threadIdx.x == 0)                                                                               \
        status = kind == kind_reduce ? gshmem_##NAME##_##OP##_reduce(team, dest, source, n)               \
                                     : gshmem_##NAME##_##OP##_reducescatter(team, dest, source, n);       \
    } else if (form == form_warp) {                                                                       \
      if (threadIdx.x < 32)                                                                               \
        status = kind == kind_reduce ? gshmemx_##NAME##_##OP##_reduce_warp(team, dest, source, n)         \
                                     : gshmemx_##NAME##_##OP##_reducescatter_warp(team, dest, source, n); \
    } else if (kind == kind_reduce) {                                                                     \
      status = gshmemx_##NAME##_##OP##_reduce_block(team, dest, source, n);                               \
    } else {                                                                                              \
      status = gshmemx_##NAME##_##OP##_reducescatter_block(team, dest, source, n);                        \
    }                                                                                                     \
    if (threadIdx.x == 0) *rc = status;                                                                   \
  }
#define TEAM_GPU_BITWISE_KERNEL(NAME, TYPE) TEAM_GPU_ALL_OPS(TEAM_GPU_OP_KERNEL, NAME, TYPE)
#define TEAM_GPU_ARITH_KERNEL(NAME, TYPE) GSHMEM_FOR_EACH_REDUCE_OP(TEAM_GPU_OP_KERNEL, NAME, TYPE)
TEAM_GPU_PART_BITWISE_TYPES(TEAM_GPU_BITWISE_KERNEL)
TEAM_GPU_PART_ARITH_TYPES(TEAM_GPU_ARITH_KERNEL)
#undef TEAM_GPU_ARITH_KERNEL
#undef TEAM_GPU_BITWISE_KERNEL
#undef TEAM_GPU_OP_KERNEL

// An operator the type does not have: the status the device routines'
// table would give (-7), without a kernel of its own per type.
__global__ void reduction_no_operator_kernel(int *rc) { *rc = -7; }

}  // namespace

#define TEAM_GPU_LAUNCH_CASE(NAME, TYPE, OP)                                                              \
  case op_##OP:                                                                                           \
    reduction_kernel_##NAME##_##OP<<<1, 128>>>(team, kind, (int)form, dest, source, n, rc);               \
    break;
#define TEAM_GPU_REDUCTION_LAUNCHER(NAME, TYPE, FOR_EACH_OP)                                              \
  cudaError_t launch_reduction_##NAME(int team, int op, int kind, barrier_form form, TYPE *dest,         \
                                      const TYPE *source, size_t n, int *rc) {                           \
    switch (op) {                                                                                         \
      FOR_EACH_OP(TEAM_GPU_LAUNCH_CASE, NAME, TYPE)                                                       \
      default: reduction_no_operator_kernel<<<1, 1>>>(rc); break;                                         \
    }                                                                                                     \
    return cudaGetLastError();                                                                            \
  }
#define TEAM_GPU_BITWISE_LAUNCHER(NAME, TYPE) TEAM_GPU_REDUCTION_LAUNCHER(NAME, TYPE, TEAM_GPU_ALL_OPS)
#define TEAM_GPU_ARITH_LAUNCHER(NAME, TYPE) TEAM_GPU_REDUCTION_LAUNCHER(NAME, TYPE, GSHMEM_FOR_EACH_REDUCE_OP)
TEAM_GPU_PART_BITWISE_TYPES(TEAM_GPU_BITWISE_LAUNCHER)
TEAM_GPU_PART_ARITH_TYPES(TEAM_GPU_ARITH_LAUNCHER)
#undef TEAM_GPU_ARITH_LAUNCHER
#undef TEAM_GPU_BITWISE_LAUNCHER
#undef TEAM_GPU_LAUNCH_CASE
#undef TEAM_GPU_ALL_OPS
#undef TEAM_GPU_REDUCTION_LAUNCHER

}  // namespace team_gpu
