// Broadcast, alltoall and their *mem forms on the device through their
// public C names, in every form (see team_gpu_kernels.h). A source of its
// own, beside team_gpu_collectives_*.cu: each type x form inlines a whole
// collective with its remote form, and one source with all of them was the
// build's longest step.
#include "team_gpu_kernels.h"

#include <gshmem/gshmemx.h>

namespace team_gpu {

// ------------------------------------------------ broadcast, alltoall, *mem
namespace {

// The form this PE uses (form_mixed: by PE), after thread 0's delay.
__device__ int data_form(int form, long long delay_cycles) {
  if (threadIdx.x == 0 && delay_cycles > 0) {
    const long long start = clock64();
    while (clock64() - start < delay_cycles) __nanosleep(1000);
  }
  __syncthreads();
  return form == form_mixed ? gshmem_my_pe() % 3 : form;
}

#define TEAM_GPU_DATA_KERNELS(NAME, TYPE)                                                                     \
  __global__ void broadcast_kernel_##NAME(int team, int form, TYPE *dest, const TYPE *source, size_t n,       \
                                          int root, long long delay_cycles, int *rc) {                            \
    const int f = data_form(form, delay_cycles);                                                                  \
    int status = 0;                                                                                           \
    if (f == form_thread) {                                                                                   \
      if (threadIdx.x == 0) status = gshmem_##NAME##_broadcast(team, dest, source, n, root);                  \
    } else if (f == form_warp) {                                                                              \
      if (threadIdx.x < 32) status = gshmemx_##NAME##_broadcast_warp(team, dest, source, n, root);            \
    } else {                                                                                                  \
      status = gshmemx_##NAME##_broadcast_block(team, dest, source, n, root);                                 \
    }                                                                                                         \
    if (threadIdx.x == 0) *rc = status;                                                                       \
  }                                                                                                           \
  __global__ void alltoall_kernel_##NAME(int team, int form, TYPE *dest, const TYPE *source, size_t n,        \
                                         long long delay_cycles, int *rc) {                                       \
    const int f = data_form(form, delay_cycles);                                                                  \
    int status = 0;                                                                                           \
    if (f == form_thread) {                                                                                   \
      if (threadIdx.x == 0) status = gshmem_##NAME##_alltoall(team, dest, source, n);                         \
    } else if (f == form_warp) {                                                                              \
      if (threadIdx.x < 32) status = gshmemx_##NAME##_alltoall_warp(team, dest, source, n);                   \
    } else {                                                                                                  \
      status = gshmemx_##NAME##_alltoall_block(team, dest, source, n);                                        \
    }                                                                                                         \
    if (threadIdx.x == 0) *rc = status;                                                                       \
  }
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_DATA_KERNELS)
#undef TEAM_GPU_DATA_KERNELS

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

}  // namespace

#define TEAM_GPU_DATA_LAUNCHERS(NAME, TYPE)                                                                   \
  cudaError_t launch_broadcast_##NAME(int team, barrier_form form, TYPE *dest, const TYPE *source, size_t n, \
                                      int root, long long delay_cycles, int *rc) {                              \
    broadcast_kernel_##NAME<<<1, 128>>>(team, (int)form, dest, source, n, root, delay_cycles, rc);               \
    return cudaGetLastError();                                                                                \
  }                                                                                                           \
  cudaError_t launch_alltoall_##NAME(int team, barrier_form form, TYPE *dest, const TYPE *source, size_t n,  \
                                     long long delay_cycles, int *rc) {                                          \
    alltoall_kernel_##NAME<<<1, 128>>>(team, (int)form, dest, source, n, delay_cycles, rc);                      \
    return cudaGetLastError();                                                                                \
  }
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_DATA_LAUNCHERS)
#undef TEAM_GPU_DATA_LAUNCHERS

cudaError_t launch_mem_collective(int which, int team, barrier_form form, void *dest, const void *source,
                                  size_t nbytes, int root, long long delay_cycles, int *rc) {
  mem_kernel<<<1, 128>>>(which, team, (int)form, dest, source, nbytes, root, delay_cycles, rc);
  return cudaGetLastError();
}

}  // namespace team_gpu
