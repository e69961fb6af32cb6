// Kernels behind the on-stream and host forms of the and/or/xor reductions
// and of the reducescatters (host/collectives.cpp): one block runs the block
// form of <gshmem/detail/team_collectives.h>. Every kernel here is loaded at
// init (preload_reduction_kernels), never at first launch.
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

template <class Op, class T>
__global__ void __launch_bounds__(kCollectiveThreads) reducescatter_kernel(int team, T *dest, const T *source,
                                                                           size_t n) {
  __shared__ gd::block_scratch scratch;
  gd::block_group g(&scratch);
  (void)gd::team_reducescatter<Op>(g, team, dest, source, n, "gshmemx_reducescatter_on_stream");
}

}  // namespace

#define GSHMEMI_DEFINE_REDUCTION_LAUNCHER(NAME, TYPE, OP, KIND)                                          \
  cudaError_t launch_##NAME##_##OP##_##KIND(int team, TYPE *dest, const TYPE *source, size_t n,        \
                                            cudaStream_t stream) {                                      \
    KIND##_kernel<gd::reduce_##OP, TYPE><<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, n);  \
    return cudaGetLastError();                                                                          \
  }
#define GSHMEMI_DEFINE_BITWISE_REDUCE_LAUNCHER(NAME, TYPE, OP) \
  GSHMEMI_DEFINE_REDUCTION_LAUNCHER(NAME, TYPE, OP, reduce)
#define GSHMEMI_DEFINE_REDUCESCATTER_LAUNCHER(NAME, TYPE, OP) \
  GSHMEMI_DEFINE_REDUCTION_LAUNCHER(NAME, TYPE, OP, reducescatter)
#define GSHMEMI_DEFINE_BITWISE_LAUNCHERS(NAME, TYPE)                                    \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_DEFINE_BITWISE_REDUCE_LAUNCHER, NAME, TYPE) \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_DEFINE_REDUCESCATTER_LAUNCHER, NAME, TYPE)
#define GSHMEMI_DEFINE_REDUCESCATTER_LAUNCHERS(NAME, TYPE) \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DEFINE_REDUCESCATTER_LAUNCHER, NAME, TYPE)
GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE(GSHMEMI_DEFINE_BITWISE_LAUNCHERS)
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_DEFINE_REDUCESCATTER_LAUNCHERS)
#undef GSHMEMI_DEFINE_REDUCESCATTER_LAUNCHERS
#undef GSHMEMI_DEFINE_BITWISE_LAUNCHERS
#undef GSHMEMI_DEFINE_REDUCESCATTER_LAUNCHER
#undef GSHMEMI_DEFINE_BITWISE_REDUCE_LAUNCHER
#undef GSHMEMI_DEFINE_REDUCTION_LAUNCHER

cudaError_t preload_reduction_kernels() {
  KernelLoader loader;
#define GSHMEMI_PRELOAD_BITWISE_REDUCE(NAME, TYPE, OP) loader.load(&reduce_kernel<gd::reduce_##OP, TYPE>);
#define GSHMEMI_PRELOAD_REDUCESCATTER(NAME, TYPE, OP) loader.load(&reducescatter_kernel<gd::reduce_##OP, TYPE>);
#define GSHMEMI_PRELOAD_BITWISE(NAME, TYPE)                                            \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_PRELOAD_BITWISE_REDUCE, NAME, TYPE)        \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_PRELOAD_REDUCESCATTER, NAME, TYPE)
#define GSHMEMI_PRELOAD_REDUCESCATTERS(NAME, TYPE) \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_PRELOAD_REDUCESCATTER, NAME, TYPE)
  GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE(GSHMEMI_PRELOAD_BITWISE)
  GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_PRELOAD_REDUCESCATTERS)
#undef GSHMEMI_PRELOAD_REDUCESCATTERS
#undef GSHMEMI_PRELOAD_BITWISE
#undef GSHMEMI_PRELOAD_REDUCESCATTER
#undef GSHMEMI_PRELOAD_BITWISE_REDUCE
  return loader.result();
}

}  // namespace team
}  // namespace gshmemi
