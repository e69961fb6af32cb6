// RMA x type through NVSHMEM's per-queue-pair names (nvshmemx_qp_*, the
// compatibility headers), thread forms: the writes here, the reads and the
// cooperative forms in update_gpu_rma_qp_coop.cu (compiled side by side;
// the launcher runs the two thread kernels one after the other): the same writes and
// reads as the thread and cooperative kernels (update_gpu_rma_thread.cu,
// update_gpu_rma_coop.cu),
// into the same layout, so test_update_gpu.cpp checks them with the same
// reference. The handles come from nvshmemx_qp_create (set_rma_qp_handles).
#include "update_gpu_kernels.h"

#include <nvshmemx.h>

namespace update_gpu {
namespace {

int g_thread_qp = NVSHMEMX_QP_DEFAULT;

#define RMA_QP_KERNELS(NAME, TYPE)                                                                            \
  __global__ void rma_qp_thread_kernel_##NAME(TYPE *dst, const TYPE *src, uint64_t *sig, int target,          \
                                              nvshmemx_qp_handle_t qp) {                                     \
    nvshmemx_qp_##NAME##_p(dst + kP, src[0], target, qp);                                                     \
    nvshmemx_qp_##NAME##_put(dst + kPut, src, kMsg, target, qp);                                              \
    nvshmemx_qp_##NAME##_put_nbi(dst + kPutNbi, src + 1, kMsg, target, qp);                                   \
    nvshmemx_qp_##NAME##_put(dst + kPutmem, src + 2, kMsg, target, NVSHMEMX_QP_DEFAULT);                      \
    nvshmemx_qp_##NAME##_put_signal(dst + kPutSig, src + 3, kMsg, sig + 0, 7, NVSHMEM_SIGNAL_SET, target, qp); \
    nvshmemx_qp_##NAME##_put_signal_nbi(dst + kPutSig, src + 3, kMsg, sig + 1, 5, NVSHMEM_SIGNAL_ADD, target, qp); \
    nvshmemx_qp_quiet(target, &qp, 1);                                                                        \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_QP_KERNELS)
#undef RMA_QP_KERNELS

}  // namespace

// The cooperative kernels' handle is update_gpu_rma_qp_coop.cu's.
void set_rma_qp_coop_handle(int coop_qp);
void set_rma_qp_handles(int thread_qp, int coop_qp) {
  g_thread_qp = thread_qp;
  set_rma_qp_coop_handle(coop_qp);
}

#define RMA_QP_LAUNCH(NAME, TYPE)                                                                             \
  cudaError_t launch_rma_qp_thread_get_##NAME(const TYPE *src, TYPE *got, int target, int qp);               \
  cudaError_t launch_rma_qp_thread_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target) { \
    rma_qp_thread_kernel_##NAME<<<1, 1>>>(dst, src, sig, target, g_thread_qp);                                \
    const cudaError_t e = cudaGetLastError();                                                                 \
    return e != cudaSuccess ? e : launch_rma_qp_thread_get_##NAME(src, got, target, g_thread_qp);            \
  }
GSHMEM_FOR_EACH_RMA_TYPE(RMA_QP_LAUNCH)
#undef RMA_QP_LAUNCH

// The signal of a qp form: nvshmemx_qp_signal_op, one thread.
namespace {
__global__ void qp_signal_kernel(uint64_t *sig, uint64_t value, int op, int target, nvshmemx_qp_handle_t qp) {
  nvshmemx_qp_signal_op(sig, value, op, target, qp);
  nvshmemx_qp_quiet(target, &qp, 1);
}
}  // namespace
cudaError_t launch_qp_signal_op(uint64_t *sig, uint64_t value, int op, int target) {
  qp_signal_kernel<<<1, 1>>>(sig, value, op, target, g_thread_qp);
  return cudaGetLastError();
}

}  // namespace update_gpu
