// Kernels behind the on-stream and host forms of every reduction and
// reducescatter (host/collectives.cpp): one block runs the block form of
// <gshmem/detail/team_collectives.h>, or, with enough data and every member
// mapped, the wide form (wide_collectives.cuh).
//
// One operator a translation unit: these instances are most of the
// library's device code, and one file of them all set the build's critical
// path however many cores compiled it. device/CMakeLists.txt generates
// reduction_kernels_<op>.cu for each operator; each defines
// GSHMEMI_REDUCTION_PART (the operator) and GSHMEMI_IN_PART_<op>(...) as
// its arguments, and includes this file, which then
// defines the launchers of that operator's routines (taken from the one
// routine list of <gshmem/types.h>) and preload_reduction_kernels_<op>().
// reduction_kernels.cu's preload_reduction_kernels() loads every part at
// init, never at first launch; an operator without its part leaves that
// function undefined, and no program loads the library.
#include <gshmem/detail/team_collectives.h>
#include <gshmem/types.h>

#include "../src/team_internal.h"
#include "kernel_loader.h"
#include "wide_collectives.cuh"

#ifndef GSHMEMI_REDUCTION_PART
#error "reduction_kernels.cuh: define GSHMEMI_REDUCTION_PART (an operator) before including it"
#endif

// GSHMEMI_IN_PART(OP, ...) keeps its text only in OP's part: the part
// defines GSHMEMI_IN_PART_<its operator>(...) as its arguments; every other
// operator's is empty.
#ifndef GSHMEMI_IN_PART_sum
#define GSHMEMI_IN_PART_sum(...)
#endif
#ifndef GSHMEMI_IN_PART_prod
#define GSHMEMI_IN_PART_prod(...)
#endif
#ifndef GSHMEMI_IN_PART_max
#define GSHMEMI_IN_PART_max(...)
#endif
#ifndef GSHMEMI_IN_PART_min
#define GSHMEMI_IN_PART_min(...)
#endif
#ifndef GSHMEMI_IN_PART_and
#define GSHMEMI_IN_PART_and(...)
#endif
#ifndef GSHMEMI_IN_PART_or
#define GSHMEMI_IN_PART_or(...)
#endif
#ifndef GSHMEMI_IN_PART_xor
#define GSHMEMI_IN_PART_xor(...)
#endif
#define GSHMEMI_IN_PART(OP, ...) GSHMEMI_IN_PART_##OP(__VA_ARGS__)
#define GSHMEMI_PART_NAME(PREFIX, OP) GSHMEMI_PART_NAME_EXPANDED(PREFIX, OP)
#define GSHMEMI_PART_NAME_EXPANDED(PREFIX, OP) PREFIX##OP

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

// Every reduction routine: the arithmetic reduce (GSHMEM_FOR_EACH_REDUCE_OP
// over the reduce types) and the list of the others (bitwise reduce and
// reducescatter, arithmetic reducescatter). X(NAME, TYPE, OP, KIND).
#define GSHMEMI_REDUCTION_ARITHMETIC_REDUCE_X(NAME, TYPE, OP) GSHMEMI_REDUCTION_X(NAME, TYPE, OP, reduce)
#define GSHMEMI_REDUCTION_ARITHMETIC_REDUCE(NAME, TYPE) \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_REDUCTION_ARITHMETIC_REDUCE_X, NAME, TYPE)
#define GSHMEMI_FOR_EACH_REDUCTION_ROUTINE                                   \
  GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_REDUCTION_ARITHMETIC_REDUCE)            \
  GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER

#define GSHMEMI_REDUCTION_LAUNCHER(NAME, TYPE, OP, KIND)                                                \
  cudaError_t launch_##NAME##_##OP##_##KIND(int team, TYPE *dest, const TYPE *source, size_t n,        \
                                            cudaStream_t stream) {                                      \
    cudaError_t err;                                                                                    \
    if (wide::try_reduce<gd::reduce_##OP, TYPE, wide_scatter_##KIND>(team, dest, source, n, stream, &err)) \
      return err;                                                                                       \
    KIND##_kernel<gd::reduce_##OP, TYPE><<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, n);  \
    return cudaGetLastError();                                                                          \
  }
#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND) GSHMEMI_IN_PART(OP, GSHMEMI_REDUCTION_LAUNCHER(NAME, TYPE, OP, KIND))
GSHMEMI_FOR_EACH_REDUCTION_ROUTINE
#undef GSHMEMI_REDUCTION_X

cudaError_t GSHMEMI_PART_NAME(preload_reduction_kernels_, GSHMEMI_REDUCTION_PART)() {
  KernelLoader loader;
#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND)          \
  GSHMEMI_IN_PART(OP, loader.load(&KIND##_kernel<gd::reduce_##OP, TYPE>); \
                  loader.load(&wide::phase_kernel<wide::reduce_phase<gd::reduce_##OP, TYPE, wide_scatter_##KIND>>);)
  GSHMEMI_FOR_EACH_REDUCTION_ROUTINE
#undef GSHMEMI_REDUCTION_X
  return loader.result();
}

}  // namespace team
}  // namespace gshmemi
