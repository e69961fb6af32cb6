// Kernels behind the on-stream and host forms of the small collectives
// (host/collectives.cpp): one block runs the block form of
// <gshmem/detail/team_collectives.h>. Every kernel here is loaded at init
// (preload_collective_kernels), never at first launch.
#include <gshmem/detail/team_collectives.h>
#include <gshmem/types.h>

#include "../host/team_internal.h"
#include "kernel_loader.h"

namespace gshmemi {
namespace team {
namespace {

namespace gd = gshmem::detail;

template <class Op, class T>
__global__ void __launch_bounds__(kCollectiveThreads) reduce_kernel(int team, T *dest, const T *source, size_t n) {
  __shared__ gd::block_scratch scratch;
  gd::block_group g(&scratch);
  (void)gd::team_reduce<Op>(g, team, dest, source, n, "gshmemx_reduce_on_stream");
}

template <class T>
__global__ void __launch_bounds__(kCollectiveThreads) fcollect_kernel(int team, T *dest, const T *source,
                                                                      size_t nelems) {
  __shared__ gd::block_scratch scratch;
  gd::block_group g(&scratch);
  (void)gd::team_fcollect(g, team, dest, source, nelems, "gshmemx_fcollect_on_stream");
}

}  // namespace

#define GSHMEMI_DEFINE_REDUCE_LAUNCHER(NAME, TYPE, OP)                                                  \
  cudaError_t launch_##NAME##_##OP##_reduce(int team, TYPE *dest, const TYPE *source, size_t n,       \
                                            cudaStream_t stream) {                                     \
    reduce_kernel<gd::reduce_##OP, TYPE><<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, n); \
    return cudaGetLastError();                                                                         \
  }
#define GSHMEMI_DEFINE_COLLECTIVE_LAUNCHERS(NAME, TYPE)                                                \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DEFINE_REDUCE_LAUNCHER, NAME, TYPE)                                \
  cudaError_t launch_##NAME##_fcollect(int team, TYPE *dest, const TYPE *source, size_t nelems,         \
                                       cudaStream_t stream) {                                          \
    fcollect_kernel<TYPE><<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, nelems);           \
    return cudaGetLastError();                                                                         \
  }
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_DEFINE_COLLECTIVE_LAUNCHERS)
#undef GSHMEMI_DEFINE_COLLECTIVE_LAUNCHERS
#undef GSHMEMI_DEFINE_REDUCE_LAUNCHER

cudaError_t preload_collective_kernels() {
  KernelLoader loader;
#define GSHMEMI_PRELOAD_REDUCE(NAME, TYPE, OP) loader.load(&reduce_kernel<gd::reduce_##OP, TYPE>);
#define GSHMEMI_PRELOAD_COLLECTIVES(NAME, TYPE)                 \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_PRELOAD_REDUCE, NAME, TYPE) \
  loader.load(&fcollect_kernel<TYPE>);
  GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_PRELOAD_COLLECTIVES)
#undef GSHMEMI_PRELOAD_COLLECTIVES
#undef GSHMEMI_PRELOAD_REDUCE
  return loader.result();
}


// ------------------------------------------------ broadcast, alltoall, *mem
namespace {

__global__ void __launch_bounds__(kCollectiveThreads) broadcast_bytes_kernel(int team, void *dest, const void *source,
                                                                              size_t nbytes, int root) {
  __shared__ gd::block_scratch scratch;
  gd::block_group g(&scratch);
  (void)gd::team_broadcast_bytes(g, team, dest, source, nbytes, root, "gshmemx_broadcast_on_stream");
}

__global__ void __launch_bounds__(kCollectiveThreads) alltoall_bytes_kernel(int team, void *dest, const void *source,
                                                                             size_t block_bytes) {
  __shared__ gd::block_scratch scratch;
  gd::block_group g(&scratch);
  (void)gd::team_alltoall_bytes(g, team, dest, source, block_bytes, "gshmemx_alltoall_on_stream");
}

}  // namespace

cudaError_t launch_broadcast_bytes(int team, void *dest, const void *source, size_t nbytes, int root,
                                   cudaStream_t stream) {
  broadcast_bytes_kernel<<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, nbytes, root);
  return cudaGetLastError();
}

cudaError_t launch_alltoall_bytes(int team, void *dest, const void *source, size_t block_bytes, cudaStream_t stream) {
  alltoall_bytes_kernel<<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, block_bytes);
  return cudaGetLastError();
}

cudaError_t launch_fcollect_bytes(int team, void *dest, const void *source, size_t nbytes, cudaStream_t stream) {
  fcollect_kernel<unsigned char><<<1, kCollectiveThreads, 0, stream>>>(
      team, static_cast<unsigned char *>(dest), static_cast<const unsigned char *>(source), nbytes);
  return cudaGetLastError();
}

cudaError_t preload_data_collective_kernels() {
  KernelLoader loader;
  loader.load(&broadcast_bytes_kernel);
  loader.load(&alltoall_bytes_kernel);
  // fcollectmem's kernel is uchar's fcollect, loaded by preload_collective_kernels.
  return loader.result();
}

}  // namespace team
}  // namespace gshmemi
