// Broadcast, alltoall and their *mem forms on the device through their
// public C names, in the forms of the test matrix (see team_gpu_kernels.h).
// Sources of their own, beside team_gpu_collectives_*.cu: each type x form
// inlines a whole collective with its remote form, and one source with all
// of them was the build's longest step. The including source picks its
// part: TEAM_GPU_DATA_PART 0 broadcast, 1 alltoall, 2 the *mem forms.
#pragma once
#include "team_gpu_kernels.h"

#include <gshmem/gshmemx.h>

namespace team_gpu {

// ------------------------------------------------ broadcast, alltoall, *mem
namespace {

// The form this PE uses (form_mixed: by PE, the warp form on even PEs and
// the block form on odd ones: groups may meet in one call, a one-thread call
// only other one-thread calls), after thread 0's delay.
__device__ int data_form(int form, long long delay_cycles) {
  if (threadIdx.x == 0 && delay_cycles > 0) {
    const long long start = clock64();
    while (clock64() - start < delay_cycles) __nanosleep(1000);
  }
  __syncthreads();
  return form == form_mixed ? form_warp + gshmem_my_pe() % 2 : form;
}

// The block form always; thread and warp (and so mixed runs) for the types
// of every_form_type, else *rc = kFormNotCompiled.
#define TEAM_GPU_DATA_KERNEL(NAME, TYPE, WHAT, PARAMS, ARGS)                                                   \
  __global__ void WHAT##_kernel_##NAME(int team, int form, TYPE *dest, const TYPE *source, size_t n PARAMS,   \
                                       long long delay_cycles, int *rc) {                                      \
    const int f = data_form(form, delay_cycles);                                                               \
    int status = kFormNotCompiled;                                                                             \
    if (f == form_block) {                                                                                     \
      status = gshmemx_##NAME##_##WHAT##_block(team, dest, source, n ARGS);                                    \
    } else if constexpr (every_form_type(#NAME)) {                                                             \
      if (f == form_thread) {                                                                                  \
        if (threadIdx.x == 0) status = gshmem_##NAME##_##WHAT(team, dest, source, n ARGS);                     \
      } else if (threadIdx.x < 32) {                                                                           \
        status = gshmemx_##NAME##_##WHAT##_warp(team, dest, source, n ARGS);                                   \
      }                                                                                                        \
    }                                                                                                          \
    if (threadIdx.x == 0) *rc = status;                                                                        \
  }
#define TEAM_GPU_COMMA ,
#if TEAM_GPU_DATA_PART == 0
#define TEAM_GPU_DATA_KERNELS(NAME, TYPE) TEAM_GPU_DATA_KERNEL(NAME, TYPE, broadcast, TEAM_GPU_COMMA int root, TEAM_GPU_COMMA root)
#elif TEAM_GPU_DATA_PART == 1
#define TEAM_GPU_DATA_KERNELS(NAME, TYPE) TEAM_GPU_DATA_KERNEL(NAME, TYPE, alltoall, , )
#else
#define TEAM_GPU_DATA_KERNELS(NAME, TYPE)
#endif
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_DATA_KERNELS)
#undef TEAM_GPU_DATA_KERNELS
#undef TEAM_GPU_DATA_KERNEL

#if TEAM_GPU_DATA_PART == 2
__global__ void mem_kernel(int which, int team, int form, void *dest, const void *source, size_t nbytes, int root,
                           long long delay_cycles, int *rc) {
  const int f = data_form(form, delay_cycles);
  int status = 0;
  if (f == form_thread) {
    if (threadIdx.x == 0)
      status = which == 0   ? gshmem_broadcastmem(team, dest, source, nbytes, root)
               : which == 1 ? gshmem_alltoallmem(team, dest, source, nbytes)
                            : gshmem_fcollectmem(team, dest, source, nbytes);
  } else if (f == form_warp) {
    if (threadIdx.x < 32)
      status = which == 0   ? gshmemx_broadcastmem_warp(team, dest, source, nbytes, root)
               : which == 1 ? gshmemx_alltoallmem_warp(team, dest, source, nbytes)
                            : gshmemx_fcollectmem_warp(team, dest, source, nbytes);
  } else {
    switch (which) {
      case 0: status = gshmemx_broadcastmem_block(team, dest, source, nbytes, root); break;
      case 1: status = gshmemx_alltoallmem_block(team, dest, source, nbytes); break;
      default: status = gshmemx_fcollectmem_block(team, dest, source, nbytes); break;
    }
  }
  if (threadIdx.x == 0) *rc = status;
}

#endif  // TEAM_GPU_DATA_PART == 2

}  // namespace

#if TEAM_GPU_DATA_PART == 0
#define TEAM_GPU_DATA_LAUNCHERS(NAME, TYPE)                                                                   \
  cudaError_t launch_broadcast_##NAME(int team, barrier_form form, TYPE *dest, const TYPE *source, size_t n, \
                                      int root, long long delay_cycles, int *rc) {                              \
    broadcast_kernel_##NAME<<<1, 128>>>(team, (int)form, dest, source, n, root, delay_cycles, rc);               \
    return cudaGetLastError();                                                                                \
  }
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_DATA_LAUNCHERS)
#undef TEAM_GPU_DATA_LAUNCHERS
#elif TEAM_GPU_DATA_PART == 1
#define TEAM_GPU_DATA_LAUNCHERS(NAME, TYPE)                                                                   \
  cudaError_t launch_alltoall_##NAME(int team, barrier_form form, TYPE *dest, const TYPE *source, size_t n,  \
                                     long long delay_cycles, int *rc) {                                          \
    alltoall_kernel_##NAME<<<1, 128>>>(team, (int)form, dest, source, n, delay_cycles, rc);                      \
    return cudaGetLastError();                                                                                \
  }
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_DATA_LAUNCHERS)
#undef TEAM_GPU_DATA_LAUNCHERS
#else
cudaError_t launch_mem_collective(int which, int team, barrier_form form, void *dest, const void *source,
                                  size_t nbytes, int root, long long delay_cycles, int *rc) {
  mem_kernel<<<1, 128>>>(which, team, (int)form, dest, source, nbytes, root, delay_cycles, rc);
  return cudaGetLastError();
}
#endif
#undef TEAM_GPU_COMMA

}  // namespace team_gpu
