// RMA x type, thread forms: p, put, put_nbi, putmem, put_signal[_nbi], g,
// the weak g, get[_nbi], getmem, each through its public C name, from one
// thread. Two kernels per type, the writes here and the reads in
// update_gpu_rma_thread_get.cu (two sources that compile side by side), run
// one after the other on the launcher's stream.
#include "update_gpu_kernels.h"

#include <gshmem/update_ext.h>

namespace update_gpu {
namespace {

#define RMA_THREAD_PUT_KERNEL(NAME, TYPE)                                                            \
  __global__ void rma_thread_put_kernel_##NAME(TYPE *dst, const TYPE *src, uint64_t *sig, int target) { \
    gshmem_##NAME##_p(dst + kP, src[0], target);                                                     \
    gshmem_##NAME##_put(dst + kPut, src, kMsg, target);                                              \
    gshmem_##NAME##_put_nbi(dst + kPutNbi, src + 1, kMsg, target);                                   \
    gshmem_putmem(dst + kPutmem, src + 2, kMsg * sizeof(TYPE), target);                              \
    gshmem_##NAME##_put_signal(dst + kPutSig, src + 3, kMsg, sig + 0, 7, GSHMEM_SIGNAL_SET, target); \
    gshmem_##NAME##_put_signal_nbi(dst + kPutSig, src + 3, kMsg, sig + 1, 5, GSHMEM_SIGNAL_ADD, target); \
    gshmem_quiet();                                                                                  \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_THREAD_PUT_KERNEL)
#undef RMA_THREAD_PUT_KERNEL

}  // namespace

#define RMA_THREAD_LAUNCH(NAME, TYPE)                                                                \
  cudaError_t launch_rma_thread_get_##NAME(const TYPE *src, TYPE *got, int target);                \
  cudaError_t launch_rma_thread_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target) { \
    rma_thread_put_kernel_##NAME<<<1, 1>>>(dst, src, sig, target);                                   \
    const cudaError_t e = cudaGetLastError();                                                        \
    return e != cudaSuccess ? e : launch_rma_thread_get_##NAME(src, got, target);                   \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_THREAD_LAUNCH)
#undef RMA_THREAD_LAUNCH

}  // namespace update_gpu
