// The device form of the mismatch test (test_collective_mismatch.cpp): one
// block calls the block form of alltoall with the count it is given.
#include <gshmem/gshmemx.h>

#include <cuda_runtime.h>

namespace {
__global__ void alltoall_block(int *dest, const int *source, size_t nelems) {
  (void)gshmemx_int_alltoall_block(GSHMEM_TEAM_WORLD, dest, source, nelems);
}
}  // namespace

cudaError_t launch_alltoall_block(int *dest, const int *source, size_t nelems, cudaStream_t stream) {
  alltoall_block<<<1, 256, 0, stream>>>(dest, source, nelems);
  return cudaGetLastError();
}
