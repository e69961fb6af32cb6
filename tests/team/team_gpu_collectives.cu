// Small collectives on the device through their public C names, in every
// form (see team_gpu_kernels.h).
#include "team_gpu_kernels.h"

#include <gshmem/gshmemx.h>

namespace team_gpu {
namespace {

#define TEAM_GPU_COLLECTIVE_KERNELS(NAME, TYPE)                                                              \
  __global__ void reduce_kernel_##NAME(int team, int op, int form, TYPE *dest, const TYPE *source, size_t n,   \
                                       int *rc) {                                                            \
    int status = 0;                                                                                          \
    if (form == form_thread) {                                                                               \
      if (threadIdx.x == 0)                                                                                  \
        status = op == 0   ? gshmem_##NAME##_sum_reduce(team, dest, source, n)                              \
                 : op == 1 ? gshmem_##NAME##_prod_reduce(team, dest, source, n)                             \
                 : op == 2 ? gshmem_##NAME##_max_reduce(team, dest, source, n)                              \
                           : gshmem_##NAME##_min_reduce(team, dest, source, n);                             \
    } else if (form == form_warp) {                                                                          \
      if (threadIdx.x < 32)                                                                                  \
        status = op == 0   ? gshmemx_##NAME##_sum_reduce_warp(team, dest, source, n)                        \
                 : op == 1 ? gshmemx_##NAME##_prod_reduce_warp(team, dest, source, n)                       \
                 : op == 2 ? gshmemx_##NAME##_max_reduce_warp(team, dest, source, n)                        \
                           : gshmemx_##NAME##_min_reduce_warp(team, dest, source, n);                       \
    } else {                                                                                                 \
      switch (op) {                                                                                          \
        case 0: status = gshmemx_##NAME##_sum_reduce_block(team, dest, source, n); break;                   \
        case 1: status = gshmemx_##NAME##_prod_reduce_block(team, dest, source, n); break;                  \
        case 2: status = gshmemx_##NAME##_max_reduce_block(team, dest, source, n); break;                   \
        default: status = gshmemx_##NAME##_min_reduce_block(team, dest, source, n); break;                  \
      }                                                                                                      \
    }                                                                                                        \
    if (threadIdx.x == 0) *rc = status;                                                                      \
  }                                                                                                          \
  __global__ void fcollect_kernel_##NAME(int team, int form, TYPE *dest, const TYPE *source, size_t n, int *rc) { \
    int status = 0;                                                                                          \
    if (form == form_thread) {                                                                               \
      if (threadIdx.x == 0) status = gshmem_##NAME##_fcollect(team, dest, source, n);                        \
    } else if (form == form_warp) {                                                                          \
      if (threadIdx.x < 32) status = gshmemx_##NAME##_fcollect_warp(team, dest, source, n);                  \
    } else {                                                                                                 \
      status = gshmemx_##NAME##_fcollect_block(team, dest, source, n);                                       \
    }                                                                                                        \
    if (threadIdx.x == 0) *rc = status;                                                                      \
  }
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_COLLECTIVE_KERNELS)
#undef TEAM_GPU_COLLECTIVE_KERNELS

}  // namespace

#define TEAM_GPU_COLLECTIVE_LAUNCHERS(NAME, TYPE)                                                            \
  cudaError_t launch_reduce_##NAME(int team, int op, barrier_form form, TYPE *dest, const TYPE *source,     \
                                   size_t n, int *rc) {                                                      \
    reduce_kernel_##NAME<<<1, 128>>>(team, op, (int)form, dest, source, n, rc);                             \
    return cudaGetLastError();                                                                               \
  }                                                                                                          \
  cudaError_t launch_fcollect_##NAME(int team, barrier_form form, TYPE *dest, const TYPE *source, size_t n,  \
                                     int *rc) {                                                              \
    fcollect_kernel_##NAME<<<1, 128>>>(team, (int)form, dest, source, n, rc);                               \
    return cudaGetLastError();                                                                               \
  }
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_COLLECTIVE_LAUNCHERS)
#undef TEAM_GPU_COLLECTIVE_LAUNCHERS

}  // namespace team_gpu
