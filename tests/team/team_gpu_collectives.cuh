// Small collectives on the device through their public C names, in every
// form (see team_gpu_kernels.h), for the types TEAM_GPU_PART_COLLECTIVE_TYPES
// that the including source (team_gpu_collectives_{a,b,c}.cu) defines: three
// parts compile side by side.
#pragma once
#include "team_gpu_kernels.h"

#include <gshmem/gshmemx.h>

namespace team_gpu {
namespace {

// One reduce kernel per operator (not one with a switch over the four):
// each reduction inlines in full, and the compiler's time grows faster than
// a kernel's length. The block form always; thread and warp where the test
// matrix has them (team_gpu_kernels.h: every_form_op, every_form_type),
// else *rc = kFormNotCompiled.
#define TEAM_GPU_REDUCE_OP_KERNEL(NAME, TYPE, OP)                                                            \
  __global__ void reduce_kernel_##NAME##_##OP(int team, int form, TYPE *dest, const TYPE *source, size_t n,   \
                                              int *rc) {                                                     \
    int status = kFormNotCompiled;                                                                           \
    if (form == form_block) {                                                                                \
      status = gshmemx_##NAME##_##OP##_reduce_block(team, dest, source, n);                                  \
    } else if constexpr (every_form_op(op_##OP)) {                                                           \
      if (form == form_thread) {                                                                             \
        if (threadIdx.x == 0) status = gshmem_##NAME##_##OP##_reduce(team, dest, source, n);                 \
      } else if (threadIdx.x < 32) {                                                                         \
        status = gshmemx_##NAME##_##OP##_reduce_warp(team, dest, source, n);                                 \
      }                                                                                                      \
    }                                                                                                        \
    if (threadIdx.x == 0) *rc = status;                                                                      \
  }
#define TEAM_GPU_COLLECTIVE_KERNELS(NAME, TYPE)                                                              \
  TEAM_GPU_REDUCE_OP_KERNEL(NAME, TYPE, sum)                                                                 \
  TEAM_GPU_REDUCE_OP_KERNEL(NAME, TYPE, prod)                                                                \
  TEAM_GPU_REDUCE_OP_KERNEL(NAME, TYPE, max)                                                                 \
  TEAM_GPU_REDUCE_OP_KERNEL(NAME, TYPE, min)                                                                 \
  __global__ void fcollect_kernel_##NAME(int team, int form, TYPE *dest, const TYPE *source, size_t n, int *rc) { \
    int status = kFormNotCompiled;                                                                           \
    if (form == form_block) {                                                                                \
      status = gshmemx_##NAME##_fcollect_block(team, dest, source, n);                                       \
    } else if constexpr (every_form_type(#NAME)) {                                                           \
      if (form == form_thread) {                                                                             \
        if (threadIdx.x == 0) status = gshmem_##NAME##_fcollect(team, dest, source, n);                      \
      } else if (threadIdx.x < 32) {                                                                         \
        status = gshmemx_##NAME##_fcollect_warp(team, dest, source, n);                                      \
      }                                                                                                      \
    }                                                                                                        \
    if (threadIdx.x == 0) *rc = status;                                                                      \
  }
TEAM_GPU_PART_COLLECTIVE_TYPES(TEAM_GPU_COLLECTIVE_KERNELS)
#undef TEAM_GPU_COLLECTIVE_KERNELS
#undef TEAM_GPU_REDUCE_OP_KERNEL

}  // namespace

#define TEAM_GPU_COLLECTIVE_LAUNCHERS(NAME, TYPE)                                                            \
  cudaError_t launch_reduce_##NAME(int team, int op, barrier_form form, TYPE *dest, const TYPE *source,     \
                                   size_t n, int *rc) {                                                      \
    switch (op) {  /* 0 sum, 1 prod, 2 max, else min */                                                    \
      case 0: reduce_kernel_##NAME##_sum<<<1, 128>>>(team, (int)form, dest, source, n, rc); break;          \
      case 1: reduce_kernel_##NAME##_prod<<<1, 128>>>(team, (int)form, dest, source, n, rc); break;         \
      case 2: reduce_kernel_##NAME##_max<<<1, 128>>>(team, (int)form, dest, source, n, rc); break;          \
      default: reduce_kernel_##NAME##_min<<<1, 128>>>(team, (int)form, dest, source, n, rc); break;         \
    }                                                                                                        \
    return cudaGetLastError();                                                                               \
  }                                                                                                          \
  cudaError_t launch_fcollect_##NAME(int team, barrier_form form, TYPE *dest, const TYPE *source, size_t n,  \
                                     int *rc) {                                                              \
    fcollect_kernel_##NAME<<<1, 128>>>(team, (int)form, dest, source, n, rc);                               \
    return cudaGetLastError();                                                                               \
  }
TEAM_GPU_PART_COLLECTIVE_TYPES(TEAM_GPU_COLLECTIVE_LAUNCHERS)
#undef TEAM_GPU_COLLECTIVE_LAUNCHERS

}  // namespace team_gpu
