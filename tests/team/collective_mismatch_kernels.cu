// The device forms of the mismatch test (test_collective_mismatch.cpp): one
// block calls the block form of alltoall with the count it is given; or
// fcollect from one thread or from the whole block.
#include <gshmem/gshmemx.h>

#include <cuda_runtime.h>

namespace {
__global__ void alltoall_block(int *dest, const int *source, size_t nelems) {
  (void)gshmemx_int_alltoall_block(GSHMEM_TEAM_WORLD, dest, source, nelems);
}
// First one element from the block on both PEs (the LL ring's first call:
// its wrap and zeroing pass), then the call in the form given.
__global__ void fcollect_in_form(int *dest, const int *source, size_t nelems, bool one_thread) {
  (void)gshmemx_int_fcollect_block(GSHMEM_TEAM_WORLD, dest, source, 1);
  if (!one_thread) (void)gshmemx_int_fcollect_block(GSHMEM_TEAM_WORLD, dest, source, nelems);
  else if (threadIdx.x == 0) (void)gshmem_int_fcollect(GSHMEM_TEAM_WORLD, dest, source, nelems);
}
}  // namespace

cudaError_t launch_fcollect_in_form(int *dest, const int *source, size_t nelems, bool one_thread,
                                    cudaStream_t stream) {
  fcollect_in_form<<<1, 256, 0, stream>>>(dest, source, nelems, one_thread);
  return cudaGetLastError();
}

cudaError_t launch_alltoall_block(int *dest, const int *source, size_t nelems, cudaStream_t stream) {
  alltoall_block<<<1, 256, 0, stream>>>(dest, source, nelems);
  return cudaGetLastError();
}
