// RMA x type, thread forms: p, put, put_nbi, putmem, put_signal[_nbi], g,
// the weak g, get[_nbi], getmem, each through its public C name, from one thread.
#include "update_gpu_kernels.h"

#include <gshmem/update_ext.h>

namespace update_gpu {
namespace {

#define RMA_THREAD_KERNEL(NAME, TYPE)                                                                \
  __global__ void rma_thread_kernel_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target) { \
    gshmem_##NAME##_p(dst + kP, src[0], target);                                                     \
    gshmem_##NAME##_put(dst + kPut, src, kMsg, target);                                              \
    gshmem_##NAME##_put_nbi(dst + kPutNbi, src + 1, kMsg, target);                                   \
    gshmem_putmem(dst + kPutmem, src + 2, kMsg * sizeof(TYPE), target);                              \
    gshmem_##NAME##_put_signal(dst + kPutSig, src + 3, kMsg, sig + 0, 7, GSHMEM_SIGNAL_SET, target); \
    gshmem_##NAME##_put_signal_nbi(dst + kPutSig, src + 3, kMsg, sig + 1, 5, GSHMEM_SIGNAL_ADD, target); \
    got[0] = gshmem_##NAME##_g(src, target);                                                         \
    gshmem_##NAME##_get(got + 1, src, kMsg, target);                                                 \
    gshmem_##NAME##_get_nbi(got + 1 + kMsg, src + 1, kMsg, target);                                  \
    gshmem_getmem(got + 1 + 2 * kMsg, src + 2, kMsg * sizeof(TYPE), target);                         \
    got[kGotWeakG] = gshmemx_##NAME##_g_weak(src + 3, target);                                       \
    gshmem_quiet();                                                                                  \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_THREAD_KERNEL)
#undef RMA_THREAD_KERNEL

}  // namespace

#define RMA_THREAD_LAUNCH(NAME, TYPE)                                                                \
  cudaError_t launch_rma_thread_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target) { \
    rma_thread_kernel_##NAME<<<1, 1>>>(dst, src, got, sig, target);                                  \
    return cudaGetLastError();                                                                       \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_THREAD_LAUNCH)
#undef RMA_THREAD_LAUNCH

}  // namespace update_gpu
