// RMA x type through NVSHMEM's per-queue-pair names: the cooperative forms
// (warp and block) and the thread forms' reads (update_gpu_rma_qp.cu has
// the thread forms' writes and says more).
#include "update_gpu_kernels.h"

#include <nvshmemx.h>

namespace update_gpu {
namespace {

int g_coop_qp = NVSHMEMX_QP_DEFAULT;

#define RMA_QP_COOP_KERNEL(NAME, TYPE)                                                                        \
  __global__ void rma_qp_coop_kernel_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target,   \
                                            nvshmemx_qp_handle_t qp) {                                       \
    if (threadIdx.x < 32) {                                                                                   \
      nvshmemx_qp_##NAME##_put_warp(dst + kPutWarp, src + 4, kWarpElems, target, qp);                         \
      nvshmemx_qp_##NAME##_get_nbi_warp(got + 100, src + 4, kWarpElems, target, qp);                          \
      nvshmemx_qp_fence_warp(target, &qp, 1);                                                                 \
    }                                                                                                         \
    nvshmemx_qp_##NAME##_put_nbi_block(dst + kPutBlock, src + 5, kBlockElems, target, qp);                    \
    nvshmemx_qp_##NAME##_put_signal_nbi_block(dst + kPutSigBlock, src + 6, kBlockElems, sig + 2, 1,           \
                                              NVSHMEM_SIGNAL_ADD, target, qp);                                \
    nvshmemx_qp_##NAME##_get_block(got + 200, src + 5, kBlockElems, target, qp);                              \
    if (threadIdx.x < 32) nvshmemx_qp_##NAME##_get_warp(got + 1200, src + 6, 10, target, qp);                 \
    nvshmemx_qp_quiet_block(NVSHMEMX_PE_ALL, &qp, 1);                                                         \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_QP_COOP_KERNEL)
#undef RMA_QP_COOP_KERNEL

#define RMA_QP_GET_KERNEL(NAME, TYPE)                                                                         \
  __global__ void rma_qp_thread_get_kernel_##NAME(const TYPE *src, TYPE *got, int target,                    \
                                                  nvshmemx_qp_handle_t qp) {                                 \
    got[0] = nvshmemx_qp_##NAME##_g(src, target, qp);                                                          \
    nvshmemx_qp_##NAME##_get(got + 1, src, kMsg, target, qp);                                                 \
    nvshmemx_qp_##NAME##_get_nbi(got + 1 + kMsg, src + 1, kMsg, target, qp);                                  \
    nvshmemx_qp_##NAME##_get(got + 1 + 2 * kMsg, src + 2, kMsg, target, qp);                                  \
    got[kGotWeakG] = nvshmemx_qp_##NAME##_g(src + 3, target, qp);                                              \
    nvshmemx_qp_quiet(target, &qp, 1);                                                                        \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_QP_GET_KERNEL)
#undef RMA_QP_GET_KERNEL

}  // namespace

void set_rma_qp_coop_handle(int coop_qp) { g_coop_qp = coop_qp; }

#define RMA_QP_COOP_LAUNCH(NAME, TYPE)                                                                        \
  cudaError_t launch_rma_qp_coop_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target) {   \
    rma_qp_coop_kernel_##NAME<<<1, 256>>>(dst, src, got, sig, target, g_coop_qp);                             \
    return cudaGetLastError();                                                                                \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_QP_COOP_LAUNCH)
#undef RMA_QP_COOP_LAUNCH

#define RMA_QP_GET_LAUNCH(NAME, TYPE)                                                                         \
  cudaError_t launch_rma_qp_thread_get_##NAME(const TYPE *src, TYPE *got, int target, int qp) {              \
    rma_qp_thread_get_kernel_##NAME<<<1, 1>>>(src, got, target, qp);                                          \
    return cudaGetLastError();                                                                                \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_QP_GET_LAUNCH)
#undef RMA_QP_GET_LAUNCH

}  // namespace update_gpu
