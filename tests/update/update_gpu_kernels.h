// Host-callable launchers of the GPU update tests' kernels.
//
// The kernels live in ordinary .cu files compiled without -rdc, one file per
// family so that they compile in parallel; the Catch2 checks live in
// test_update_gpu.cpp, compiled by the host compiler only. (nvcc's front end
// in CUDA 13.0 can take many minutes on a file that combines Catch2 v3's
// TEST_CASE with many device-template instantiations; keeping Catch2 out of
// .cu files avoids that and makes the tests build the same with v2 and v3.)
// Every launcher returns the launch status and does not synchronize.
#pragma once

#include <gshmem/types.h>

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace update_gpu {

// Symmetric layout of the per-type RMA test, in elements.
constexpr int kP = 0, kPut = 1, kPutNbi = 9, kPutmem = 17, kPutWarp = 25, kPutBlock = 125, kPutSig = 1125,
              kPutSigBlock = 1133, kRmaSlots = 2200, kMsg = 8, kWarpElems = 100, kBlockElems = 1000;
constexpr int kSigs = 4;
constexpr int kGotElems = 2400;  // local results of the get forms
constexpr int kGotWeakG = 2300;  // where the thread forms put gshmemx_TYPENAME_g_weak's result

// Slots of the atomics test on the target, each touched by one PE.
enum { A_FETCH, A_SET, A_SWAP, A_CAS_OK, A_CAS_NO, A_FINC, A_INC, A_FADD, A_ADD, A_FAND, A_AND, A_FOR, A_OR,
       A_FXOR, A_XOR, A_FSUB, A_SUB, A_FMAX, A_MAX, A_FMIN, A_MIN, A_FNANMAX, A_NANMAX, A_FNANMIN, A_NANMIN,
       A_CXX, A_FADDF, A_ADDF, A_MAXNAN, A_MINNAN, A_SLOTS };

// A small value that fits every type (char included) and tells the writer
// PE and the element apart.
template <class T>
constexpr T pattern(int pe, int k) { return (T)(pe * 20 + (k % 19) + 1); }

// RMA x type: thread forms (p, put, put_nbi, putmem, put_signal[_nbi], g,
// get[_nbi], getmem) from one thread, then the warp and block forms from a
// 256-thread block.
#define UPDATE_GPU_DECLARE_RMA(NAME, TYPE)                                                           \
  cudaError_t launch_rma_thread_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target); \
  cudaError_t launch_rma_coop_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target);
GSHMEM_FOR_EACH_RMA_TYPE(UPDATE_GPU_DECLARE_RMA)
#undef UPDATE_GPU_DECLARE_RMA

// The same RMA x type through NVSHMEM's per-queue-pair names
// (update_gpu_rma_qp.cu): launch_rma_qp_thread_ / _coop_ write and read
// what launch_rma_thread_ / _coop_ do; set_rma_qp_handles picks the handles
// they pass (from nvshmemx_qp_create). launch_qp_signal_op: one
// nvshmemx_qp_signal_op, then the qp quiet.
#define UPDATE_GPU_DECLARE_RMA_QP(NAME, TYPE)                                                                \
  cudaError_t launch_rma_qp_thread_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target); \
  cudaError_t launch_rma_qp_coop_##NAME(TYPE *dst, const TYPE *src, TYPE *got, uint64_t *sig, int target);
GSHMEM_FOR_EACH_RMA_TYPE(UPDATE_GPU_DECLARE_RMA_QP)
#undef UPDATE_GPU_DECLARE_RMA_QP
void set_rma_qp_handles(int thread_qp, int coop_qp);
cudaError_t launch_qp_signal_op(uint64_t *sig, uint64_t value, int op, int target);

// Atomics x type, one thread.
#define UPDATE_GPU_DECLARE_AMO(NAME, TYPE) cudaError_t launch_amo_##NAME(TYPE *dst, TYPE *out, int target);
#define UPDATE_GPU_DECLARE_AMO_BITWISE(NAME, TYPE) \
  cudaError_t launch_amo_bitwise_##NAME(TYPE *dst, TYPE *out, int target);
#define UPDATE_GPU_DECLARE_AMO_FLOAT(NAME, TYPE) \
  cudaError_t launch_amo_float_##NAME(TYPE *dst, TYPE *out, int target);
GSHMEM_FOR_EACH_AMO_TYPE(UPDATE_GPU_DECLARE_AMO)
GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(UPDATE_GPU_DECLARE_AMO_BITWISE)
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(UPDATE_GPU_DECLARE_AMO_FLOAT)
#undef UPDATE_GPU_DECLARE_AMO
#undef UPDATE_GPU_DECLARE_AMO_BITWISE
#undef UPDATE_GPU_DECLARE_AMO_FLOAT

// Stress and litmus kernels (update_gpu_stress.cu).
cudaError_t launch_contention(unsigned long long *counter, unsigned long long *fetched_max, int blocks,
                              int threads, long per_thread);
cudaError_t launch_lock(unsigned long long *lock, unsigned long long *count, int blocks, long rounds);
cudaError_t launch_put_signal_litmus(uint64_t *msg, uint64_t *sig, uint64_t *wide_msg, uint64_t *wide_sig,
                                     uint64_t *staging, unsigned long long *violations, long rounds, int target);
cudaError_t launch_fence_litmus(uint64_t *a, uint64_t *b, uint64_t *staging, unsigned long long *violations,
                                long rounds, int target);
cudaError_t launch_barrier_stress(unsigned long long *counter, unsigned long long *violations, long rounds);

// Cooperative update forms in 1-, 2- and 3-D blocks (update_gpu_shapes.cu):
// one warp's worth of threads arranged as `block` (x*y*z == 32 * warps).
// Every warp w puts its 4096-byte slice with gshmemx_putmem_warp, applies
// gshmemx_uint64_atomic_fetch_add_bulk_warp (+1) to its 64 counters and
// put_signal_warp with SIGNAL_ADD 1 to its signal; the block as a whole does
// the same through the _block forms on the second half of each area.
struct shape_areas {
  unsigned char *bytes;      // symmetric, 2 * warps * 4096
  unsigned long long *adds;  // symmetric, 2 * warps * 64
  uint64_t *sigs;            // symmetric, warps + 1
  uint64_t *data;            // symmetric, warps * 16 + 16 (put_signal payload)
  const unsigned char *src;  // local source bytes, 2 * warps * 4096
};
cudaError_t launch_coop_shapes(const shape_areas &a, dim3 block, int target);

// 16-byte atomics: one writer thread stores {k, k} for k = 1..iterations
// (alternating store, exchange and compare-exchange) to `cell` on `target`;
// `readers` threads on the target load it with 16-byte atomic loads and count
// the values whose halves differ (torn) into torn[0] and loads into torn[1].
cudaError_t launch_wide_writer_on(unsigned long long *cell, long iterations, int target, cudaStream_t stream);
cudaError_t launch_wide_readers_on(unsigned long long *cell, long iterations, int blocks, unsigned long long *torn,
                                   cudaStream_t stream);

// __half bulk add: warp 0 of a 256-thread block calls
// gshmemx_half_atomic_fetch_add_bulk_warp kHalfCalls times, then the block
// calls the _block form kHalfCalls times; each call adds 1.0 for 256
// elements to counters[i % 64] on `target` (4 per counter per call) and
// writes the old values to fetched[call * 256 + i] (local). Afterwards every
// counter holds 2 * kHalfCalls * 4 and its fetched values are 0 .. that - 1,
// each once.
constexpr int kHalfCalls = 8;
cudaError_t launch_half_bulk_add(unsigned short *counters, unsigned short *fetched, int target);

}  // namespace update_gpu
