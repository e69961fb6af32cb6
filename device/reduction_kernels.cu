// Kernels behind the on-stream and host forms of the and/or/xor reductions
// and of the reducescatters (host/collectives.cpp): one block runs the block
// form of <gshmem/detail/team_collectives.h>, or, with enough data and every
// member mapped, the wide form (wide_collectives.cuh). Every kernel here is loaded at
// init (preload_reduction_kernels), never at first launch.
#include <gshmem/detail/team_collectives.h>
#include <gshmem/types.h>

#include "../src/team_internal.h"
#include "kernel_loader.h"
#include "wide_collectives.cuh"

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

template <class Op, class T>
__global__ void __launch_bounds__(kCollectiveThreads) reducescatter_kernel(int team, T *dest, const T *source,
                                                                           size_t n) {
  __shared__ gd::block_scratch scratch;
  gd::block_group g(&scratch);
  (void)gd::team_reducescatter<Op>(g, team, dest, source, n, "gshmemx_reducescatter_on_stream");
}

// Which wide data phase each kind takes (wide_collectives.cuh).
constexpr bool wide_scatter_reduce = false;
constexpr bool wide_scatter_reducescatter = true;

}  // namespace

#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND)                                          \
  cudaError_t launch_##NAME##_##OP##_##KIND(int team, TYPE *dest, const TYPE *source, size_t n,        \
                                            cudaStream_t stream) {                                      \
    cudaError_t err;                                                                                    \
    if (wide::try_reduce<gd::reduce_##OP, TYPE, wide_scatter_##KIND>(team, dest, source, n, stream, &err)) \
      return err;                                                                                       \
    KIND##_kernel<gd::reduce_##OP, TYPE><<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, n);  \
    return cudaGetLastError();                                                                          \
  }
GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER
#undef GSHMEMI_REDUCTION_X

cudaError_t preload_reduction_kernels() {
  KernelLoader loader;
#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND)   \
  loader.load(&KIND##_kernel<gd::reduce_##OP, TYPE>); \
  loader.load(&wide::reduce_kernel<gd::reduce_##OP, TYPE, wide_scatter_##KIND>);
  GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER
#undef GSHMEMI_REDUCTION_X
  return loader.result();
}

}  // namespace team
}  // namespace gshmemi
