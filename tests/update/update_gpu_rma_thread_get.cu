// RMA x type, thread forms, the reads: g, get, get_nbi, getmem and the weak
// g (update_gpu_rma_thread.cu launches them after the writes).
#include "update_gpu_kernels.h"

#include <gshmem/update_ext.h>

namespace update_gpu {
namespace {

#define RMA_THREAD_GET_KERNEL(NAME, TYPE)                                                            \
  __global__ void rma_thread_get_kernel_##NAME(const TYPE *src, TYPE *got, int target) {           \
    got[0] = gshmem_##NAME##_g(src, target);                                                         \
    gshmem_##NAME##_get(got + 1, src, kMsg, target);                                                 \
    gshmem_##NAME##_get_nbi(got + 1 + kMsg, src + 1, kMsg, target);                                  \
    gshmem_getmem(got + 1 + 2 * kMsg, src + 2, kMsg * sizeof(TYPE), target);                         \
    got[kGotWeakG] = gshmemx_##NAME##_g_weak(src + 3, target);                                       \
    gshmem_quiet();                                                                                  \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_THREAD_GET_KERNEL)
#undef RMA_THREAD_GET_KERNEL

}  // namespace

#define RMA_THREAD_GET_LAUNCH(NAME, TYPE)                                                            \
  cudaError_t launch_rma_thread_get_##NAME(const TYPE *src, TYPE *got, int target) {               \
    rma_thread_get_kernel_##NAME<<<1, 1>>>(src, got, target);                                        \
    return cudaGetLastError();                                                                       \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_THREAD_GET_LAUNCH)
#undef RMA_THREAD_GET_LAUNCH

}  // namespace update_gpu
