// And/or/xor reductions and reducescatter on the device through their public
// C names, in every form (see team_gpu_kernels.h): the kernels and launchers
// of the types TEAM_GPU_PART_BITWISE_TYPES and TEAM_GPU_PART_ARITH_TYPES,
// which the including source defines. Five sources (team_gpu_reductions_*.cu)
// share the types out, so that they compile side by side: every type x
// operator x form inlines a whole reduction (its LL, two-sync and remote
// forms), and one source with all of them took nvcc more than 4 minutes,
// the longest step of the build.
#pragma once
#include "team_gpu_kernels.h"

#include <gshmem/gshmemx.h>

namespace team_gpu {
namespace {

// Every operator of a type: sum/prod/max/min, and and/or/xor for the
// bitwise types (the lists of <gshmem/types.h>).
#define TEAM_GPU_ALL_OPS(X, NAME, TYPE) \
  GSHMEM_FOR_EACH_REDUCE_OP(X, NAME, TYPE) GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(X, NAME, TYPE)

// One kernel per type, operator and kind (not one with a switch over
// them): each reduction inlines in full, and the compiler's time grows
// faster than a kernel's length. Reductions (kind reduce) of and/or/xor
// only: sum/prod/max/min reductions are team_gpu_collectives' test. The
// block form always; thread and warp where every_form_op (team_gpu_kernels.h:
// the test matrix), else *rc = kFormNotCompiled.
#define TEAM_GPU_KIND_KERNEL(NAME, TYPE, OP, KIND)                                                          \
  __global__ void reduction_kernel_##NAME##_##OP##_##KIND(int team, int form, TYPE *dest, const TYPE *source, \
                                                          size_t n, int *rc) {                              \
    int status = kFormNotCompiled;                                                                          \
    if (form == form_block) {                                                                               \
      status = gshmemx_##NAME##_##OP##_##KIND##_block(team, dest, source, n);                               \
    } else if constexpr (every_form_op(op_##OP)) {                                                          \
      if (form == form_thread) {                                                                            \
        if (threadIdx.x == 0) status = gshmem_##NAME##_##OP##_##KIND(team, dest, source, n);                \
      } else if (threadIdx.x < 32) {                                                                        \
        status = gshmemx_##NAME##_##OP##_##KIND##_warp(team, dest, source, n);                              \
      }                                                                                                     \
    }                                                                                                       \
    if (threadIdx.x == 0) *rc = status;                                                                     \
  }
#define TEAM_GPU_SCATTER_KERNEL(NAME, TYPE, OP) TEAM_GPU_KIND_KERNEL(NAME, TYPE, OP, reducescatter)
#define TEAM_GPU_BOTH_KERNELS(NAME, TYPE, OP) \
  TEAM_GPU_KIND_KERNEL(NAME, TYPE, OP, reduce) TEAM_GPU_KIND_KERNEL(NAME, TYPE, OP, reducescatter)
#define TEAM_GPU_BITWISE_KERNEL(NAME, TYPE)                              \
  GSHMEM_FOR_EACH_REDUCE_OP(TEAM_GPU_SCATTER_KERNEL, NAME, TYPE)         \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(TEAM_GPU_BOTH_KERNELS, NAME, TYPE)
#define TEAM_GPU_ARITH_KERNEL(NAME, TYPE) GSHMEM_FOR_EACH_REDUCE_OP(TEAM_GPU_SCATTER_KERNEL, NAME, TYPE)
TEAM_GPU_PART_BITWISE_TYPES(TEAM_GPU_BITWISE_KERNEL)
TEAM_GPU_PART_ARITH_TYPES(TEAM_GPU_ARITH_KERNEL)
#undef TEAM_GPU_ARITH_KERNEL
#undef TEAM_GPU_BITWISE_KERNEL
#undef TEAM_GPU_BOTH_KERNELS
#undef TEAM_GPU_SCATTER_KERNEL
#undef TEAM_GPU_KIND_KERNEL

// A kernel this source does not have: an operator the type lacks (-7, the
// status the device routines' table would give) or a sum/prod/max/min
// reduction (kFormNotCompiled: not this test's).
__global__ void reduction_status_kernel(int *rc, int status) { *rc = status; }

}  // namespace

#define TEAM_GPU_SCATTER_CASE(NAME, TYPE, OP)                                                                \
  case op_##OP:                                                                                               \
    reduction_kernel_##NAME##_##OP##_reducescatter<<<1, 128>>>(team, (int)form, dest, source, n, rc);        \
    return cudaGetLastError();
#define TEAM_GPU_REDUCE_CASE(NAME, TYPE, OP)                                                                 \
  case op_##OP:                                                                                               \
    reduction_kernel_##NAME##_##OP##_reduce<<<1, 128>>>(team, (int)form, dest, source, n, rc);               \
    return cudaGetLastError();
// SCATTER_OPS: the operators whose reducescatter kernels the type has;
// REDUCE_OPS: those whose reduction kernels it has (and/or/xor, or none).
#define TEAM_GPU_REDUCTION_LAUNCHER(NAME, TYPE, SCATTER_OPS, REDUCE_OPS)                                      \
  cudaError_t launch_reduction_##NAME(int team, int op, int kind, barrier_form form, TYPE *dest,             \
                                      const TYPE *source, size_t n, int *rc) {                               \
    if (kind == kind_reducescatter) {                                                                         \
      switch (op) { SCATTER_OPS(TEAM_GPU_SCATTER_CASE, NAME, TYPE) default: break; }                         \
    } else if (op >= op_and) {                                                                                \
      switch (op) { REDUCE_OPS(TEAM_GPU_REDUCE_CASE, NAME, TYPE) default: break; }                           \
    } else {                                                                                                  \
      reduction_status_kernel<<<1, 1>>>(rc, kFormNotCompiled);                                                \
      return cudaGetLastError();                                                                              \
    }                                                                                                         \
    reduction_status_kernel<<<1, 1>>>(rc, -7);                                                                \
    return cudaGetLastError();                                                                                \
  }
#define TEAM_GPU_NO_OPS(X, NAME, TYPE)
#define TEAM_GPU_BITWISE_LAUNCHER(NAME, TYPE) \
  TEAM_GPU_REDUCTION_LAUNCHER(NAME, TYPE, TEAM_GPU_ALL_OPS, GSHMEM_FOR_EACH_REDUCE_BITWISE_OP)
#define TEAM_GPU_ARITH_LAUNCHER(NAME, TYPE) \
  TEAM_GPU_REDUCTION_LAUNCHER(NAME, TYPE, GSHMEM_FOR_EACH_REDUCE_OP, TEAM_GPU_NO_OPS)
TEAM_GPU_PART_BITWISE_TYPES(TEAM_GPU_BITWISE_LAUNCHER)
TEAM_GPU_PART_ARITH_TYPES(TEAM_GPU_ARITH_LAUNCHER)
#undef TEAM_GPU_ARITH_LAUNCHER
#undef TEAM_GPU_BITWISE_LAUNCHER
#undef TEAM_GPU_NO_OPS
#undef TEAM_GPU_REDUCTION_LAUNCHER
#undef TEAM_GPU_REDUCE_CASE
#undef TEAM_GPU_SCATTER_CASE
#undef TEAM_GPU_ALL_OPS

}  // namespace team_gpu
