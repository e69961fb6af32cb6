// RMA x type, cooperative forms: put/get/put_signal _warp and _block and
// getmem_warp, each through its public C name, from a 256-thread block.
#include "update_gpu_kernels.h"

#include <gshmem/update_ext.h>

namespace update_gpu {
namespace {

#define RMA_COOP_KERNEL(NAME, TYPE)                                                                  \
  __global__ void rma_coop_kernel_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target) { \
    if (threadIdx.x < 32) {                                                                          \
      gshmemx_##NAME##_put_warp(dst + kPutWarp, src + 4, kWarpElems, target);                        \
      gshmemx_##NAME##_get_warp(got + 100, src + 4, kWarpElems, target);                             \
    }                                                                                                \
    gshmemx_##NAME##_put_block(dst + kPutBlock, src + 5, kBlockElems, target);                       \
    gshmemx_##NAME##_put_signal_block(dst + kPutSigBlock, src + 6, kBlockElems, sig + 2, 1,          \
                                      GSHMEM_SIGNAL_ADD, target);                                     \
    gshmemx_##NAME##_get_block(got + 200, src + 5, kBlockElems, target);                             \
    gshmemx_getmem_warp(got + 1200, src + 6, 10 * sizeof(TYPE), target);                             \
    if (threadIdx.x == 0) gshmem_quiet();                                                            \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_COOP_KERNEL)
#undef RMA_COOP_KERNEL

}  // namespace

#define RMA_COOP_LAUNCH(NAME, TYPE)                                                                  \
  cudaError_t launch_rma_coop_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target) { \
    rma_coop_kernel_##NAME<<<1, 256>>>(dst, src, got, sig, target);                                  \
    return cudaGetLastError();                                                                       \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_COOP_LAUNCH)
#undef RMA_COOP_LAUNCH

}  // namespace update_gpu
