// Kernels of the remote-peer GPU tests: the device API unchanged, the peer
// reached through the proxy (GSHMEM_REMOTE_PEERS=all).
#include "remote_gpu_kernels.h"

#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>
#include <gshmem/gshmem.hpp>

namespace remote_gpu {

namespace {

__global__ void rma_kernel(int *dst, const int *src, int *got, int target) {
  __shared__ int shared_buf[kMsgInts];
  const int t = threadIdx.x;
  if (t == 0) {
    gshmem_int_p(dst + kP, 1000 + gshmem_my_pe(), target);
    gshmem_int_put(dst + kPut, src, kMsgInts, target);
    gshmem_int_put_nbi(dst + kPutNbi, src + 1, kMsgInts, target);
    gshmem_putmem(dst + kPutmem, src + 2, kMsgInts * sizeof(int), target);
    for (int k = 0; k < kMsgInts; ++k) shared_buf[k] = 5000 + k;
    gshmem_int_put(dst + kPutShared, shared_buf, kMsgInts, target);  // from shared memory: inline pieces
    got[kG] = gshmem_int_g(src + 3, target);
    gshmem_int_get(got + kGet, src, kMsgInts, target);
    gshmem_int_get_nbi(got + kGetNbi, src + 1, kMsgInts, target);
    gshmem_int_get(shared_buf, src + 2, kMsgInts, target);  // into shared memory: result-word pieces
    for (int k = 0; k < kMsgInts; ++k) got[kGetShared + k] = shared_buf[k];
  }
  __syncthreads();
  if (t < 32) {
    gshmemx_int_put_warp(dst + kPutWarp, src + 4, kWarpInts, target);
    gshmemx_int_get_warp(got + kGetWarp, src + 4, kWarpInts, target);
  }
  __syncthreads();
  gshmemx_int_put_block(dst + kPutBlock, src + 5, kBlockInts, target);
  gshmemx_int_get_nbi_block(got + kGetBlock, src + 5, kBlockInts, target);
  if (t == 0) gshmem_quiet();
}

__global__ void amo_kernel(long long *s, long long *fetched, int target) {
  const long long me = gshmem_my_pe();
  fetched[A_FETCH] = gshmem_longlong_atomic_fetch(s + A_FETCH, target);
  gshmem_longlong_atomic_set(s + A_SET, 40 + me, target);
  fetched[A_SWAP] = gshmem_longlong_atomic_swap(s + A_SWAP, 50 + me, target);
  fetched[A_CAS_OK] = gshmem_longlong_atomic_compare_swap(s + A_CAS_OK, 7, 60 + me, target);
  fetched[A_CAS_NO] = gshmem_longlong_atomic_compare_swap(s + A_CAS_NO, 8, 70 + me, target);
  fetched[A_FINC] = gshmem_longlong_atomic_fetch_inc(s + A_FINC, target);
  gshmem_longlong_atomic_inc(s + A_INC, target);
  fetched[A_FADD] = gshmem_longlong_atomic_fetch_add(s + A_FADD, 100 + me, target);
  gshmem_longlong_atomic_add(s + A_ADD, 200 + me, target);
  unsigned long long *bits = reinterpret_cast<unsigned long long *>(s);  // the bitwise AMO types
  fetched[A_FAND] = (long long)gshmem_ulonglong_atomic_fetch_and(bits + A_FAND, 0xf0, target);
  gshmem_ulonglong_atomic_and(bits + A_AND, 0x0f, target);
  fetched[A_FOR] = (long long)gshmem_ulonglong_atomic_fetch_or(bits + A_FOR, 0x100, target);
  gshmem_ulonglong_atomic_or(bits + A_OR, 0x200, target);
  fetched[A_FXOR] = (long long)gshmem_ulonglong_atomic_fetch_xor(bits + A_FXOR, 0xff, target);
  gshmem_ulonglong_atomic_xor(bits + A_XOR, 0x3, target);
  gshmem_quiet();
}

__global__ void contend_kernel(long long *s, long long *olds, int target) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  olds[i] = gshmem_longlong_atomic_fetch_add(s + A_CONTENDED, 1, target);
}

__global__ void litmus_kernel(int *msg, const int *src_sym, uint64_t *sig, uint64_t *ack, long long rounds, int me,
                              int target, unsigned long long *violations) {
  int *src = const_cast<int *>(src_sym);
  unsigned long long bad = 0;
  for (long long r = 1; r <= rounds; ++r) {
    for (int k = 0; k < kMsgInts; ++k) src[k] = (int)(r * 131 + k * 7 + me);
    __threadfence_system();
    if (r & 1) {
      gshmem_int_put_nbi(msg, src, kMsgInts, target);
      gshmem_fence();
      gshmemx_signal_op(sig, (uint64_t)r, GSHMEM_SIGNAL_SET, target);
    } else {
      gshmem_int_put_signal(msg, src, kMsgInts, sig, (uint64_t)r, GSHMEM_SIGNAL_SET, target);
    }
    gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, (uint64_t)r);
    for (int k = 0; k < kMsgInts; ++k) {
      const int expected = (int)(r * 131 + k * 7 + target);
      const int seen = gshmem::detail::atomic_load<gshmem::memory_order::relaxed, gshmem::thread_scope::system>(
          reinterpret_cast<const unsigned int *>(msg + k));
      if (seen != expected) ++bad;
    }
    gshmemx_signal_op(ack, 1, GSHMEM_SIGNAL_ADD, target);
    gshmem_signal_wait_until(ack, GSHMEM_CMP_GE, (uint64_t)r);
  }
  gshmem_quiet();
  *violations = bad;
}

__global__ void barrier_kernel(int *slot, int rounds, int target, unsigned long long *violations) {
  unsigned long long bad = 0;
  for (int r = 1; r <= rounds; ++r) {
    if (threadIdx.x == 0) gshmem_int_p(slot + (r & 1), r, target);
    gshmem_barrier_all();
    if (threadIdx.x == 0 &&
        gshmem::detail::atomic_load<gshmem::memory_order::relaxed, gshmem::thread_scope::system>(
            reinterpret_cast<const unsigned int *>(slot + (r & 1))) != (unsigned)r)
      ++bad;
    gshmem_barrier_all();  // the slot is written again only after both read it
  }
  if (threadIdx.x == 0) *violations = bad;
}

__global__ void xamo_kernel(int *I, float *F, double *D, long long *L, double *out, int target) {
  using gshmem::memory_order;
  out[XF_SUB] = gshmemx_int_atomic_fetch_sub(I + X_I_SUB, 30, target);
  out[XF_FMAX] = gshmemx_int_atomic_fetch_max(I + X_I_FMAX, 9, target);
  gshmemx_int_atomic_min(I + X_I_MIN, 2, target);
  out[XF_FNANMAX] = gshmemx_int_atomic_fetch_nanmax(I + X_I_FNANMAX, 3, target);
  out[XF_LOAD_ACQ] = gshmem::atomic_load<memory_order::acquire>(I + X_I_LOAD_ACQ, target);
  gshmem::atomic_store<memory_order::release>(I + X_I_STORE_REL, 42, target);
  int expected = 3;
  out[XF_CAS_OK] = gshmem::atomic_compare_exchange(I + X_I_CAS_OK, expected, 4, target) ? 1 : 0;
  out[XF_CAS_OK_EXPECTED] = expected;
  expected = 1;
  out[XF_CAS_NO] = gshmem::atomic_compare_exchange<memory_order::acq_rel>(I + X_I_CAS_NO, expected, 9, target) ? 1 : 0;
  out[XF_CAS_NO_EXPECTED] = expected;
  out[XF_G_WEAK] = gshmemx_int_g_weak(I + X_I_LOAD_ACQ, target);
  out[XF_FADD] = gshmemx_float_atomic_fetch_add(F + X_F_FADD, 2.25f, target);
  out[XF_FMAX_NAN] = gshmemx_float_atomic_fetch_max(F + X_F_FMAX_NAN, __int_as_float(0x7fc00000), target);
  gshmemx_float_atomic_nanmin(F + X_F_NANMIN, 0.5f, target);
  out[XF_XCHG] = gshmem::atomic_exchange<memory_order::acq_rel>(F + X_F_XCHG, 2.5f, target);
  out[XF_DSUB] = gshmem::atomic_fetch_sub(D + X_D_FSUB, 2.5, target);
  out[XF_DMAX_ZERO] = gshmemx_double_atomic_fetch_max(D + X_D_FMAX_ZERO, 0.0, target);
  gshmem::atomic_add<memory_order::relaxed>(L + X_L_ADD, 41ll, target);
  gshmemx_longlong_atomic_sub(L + X_L_SUB, 5ll, target);
  gshmem_quiet();
}

__global__ void xamo_contend_kernel(float *F, float *olds, int target) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  olds[t] = gshmemx_float_atomic_fetch_add(F + X_F_CONTENDED, 1.0f, target);
}

__global__ void cxx_litmus_kernel(int *msg, int *src, unsigned long long *flag, unsigned long long *ack,
                                  long long rounds, int target, unsigned long long *violations) {
  using gshmem::memory_order;
  unsigned long long bad = 0;
  for (long long r = 1; r <= rounds; ++r) {
    for (int k = 0; k < kMsgInts; ++k) src[k] = (int)(r * 31 + k);
    gshmem_int_put_nbi(msg, src, kMsgInts, target);
    gshmem::atomic_store<memory_order::release>(flag, (unsigned long long)r, target);
    gshmem_ulonglong_wait_until(flag, GSHMEM_CMP_GE, (unsigned long long)r);
    for (int k = 0; k < kMsgInts; ++k)
      if (gshmem::atomic_load<memory_order::relaxed>(msg + k, gshmem_my_pe()) != (int)(r * 31 + k)) ++bad;
    (void)gshmem::atomic_fetch_add<memory_order::release>(ack, 1ull, target);
    gshmem_ulonglong_wait_until(ack, GSHMEM_CMP_GE, (unsigned long long)r);  // the peer read this round's message
  }
  gshmem_quiet();
  *violations = bad;
}

__global__ void put_nbi_unquieted_kernel(int *dst, int *src, int n, int value, int target) {
  for (int i = 0; i < n; ++i) src[i] = value + i;
  gshmem_int_put_nbi(dst, src, (size_t)n, target);
}

__global__ void count_wrong_kernel(const int *data, int n, int expected, unsigned long long *wrong) {
  unsigned long long bad = 0;
  for (int i = 0; i < n; ++i) bad += data[i] != expected + i;
  *wrong = bad;
}

}  // namespace

cudaError_t launch_xamo(int *ints, float *floats, double *doubles, long long *lls, double *fetched, float *olds,
                        int target) {
  xamo_kernel<<<1, 1>>>(ints, floats, doubles, lls, fetched, target);
  xamo_contend_kernel<<<kXamoBlocks, kXamoThreads>>>(floats, olds, target);
  return cudaGetLastError();
}

cudaError_t launch_cxx_litmus(int *msg, int *src, unsigned long long *flag, unsigned long long *ack, long long rounds,
                              int target, unsigned long long *violations) {
  cxx_litmus_kernel<<<1, 1>>>(msg, src, flag, ack, rounds, target, violations);
  return cudaGetLastError();
}

cudaError_t launch_put_nbi_unquieted(int *dst, int *src, int n, int value, int target, cudaStream_t stream) {
  put_nbi_unquieted_kernel<<<1, 1, 0, stream>>>(dst, src, n, value, target);
  return cudaGetLastError();
}

cudaError_t launch_count_wrong(const int *data, int n, int expected, unsigned long long *wrong, cudaStream_t stream) {
  count_wrong_kernel<<<1, 1, 0, stream>>>(data, n, expected, wrong);
  return cudaGetLastError();
}

__global__ void __launch_bounds__(kBurstThreads) p_burst_kernel(unsigned long long *dst, int rounds, int target) {
  for (int round = 0; round < rounds; ++round) {
    for (int i = (int)threadIdx.x; i < kBurstWords; i += kBurstThreads)
      gshmem_ulonglong_p(dst + i, burst_value(i, round), target);
    __syncthreads();
    if (threadIdx.x == 0) {
      gshmem_ulonglong_p(dst + kBurstWords, 2ull * (unsigned long long)round + 1, target);
      gshmem_ulonglong_p(dst + kBurstWords, 2ull * (unsigned long long)round + 2, target);
      gshmem_quiet();  // after the __syncthreads: every thread's p (Q3)
    }
    __syncthreads();
  }
}

template <class T>
__device__ void pattern_p(T *dst, T value, int pe);
template <>
__device__ void pattern_p(unsigned long long *dst, unsigned long long value, int pe) {
  gshmem_ulonglong_p(dst, value, pe);
}
template <>
__device__ void pattern_p(unsigned int *dst, unsigned int value, int pe) {
  gshmem_uint_p(dst, value, pe);
}
template <>
__device__ void pattern_p(unsigned short *dst, unsigned short value, int pe) {
  gshmem_ushort_p(dst, value, pe);
}
template <>
__device__ void pattern_p(unsigned char *dst, unsigned char value, int pe) {
  gshmem_uint8_p(dst, value, pe);
}

template <class T>
__global__ void __launch_bounds__(kPatternThreads) p_pattern_kernel(T *dst, int mode, int target) {
  for (int t = (int)threadIdx.x; t < kPatternElems; t += kPatternThreads) {
    if (!pattern_active(mode, t)) continue;
    const T value = (T)pattern_value(t, (int)sizeof(T));
    if (mode == 5 && t % 32 < 16) {
      pattern_p(dst + pattern_index(mode, t), value, target);
    } else {
      __nanosleep(32);  // unlike the other branch, so that the two stay apart where the warp diverges
      pattern_p(dst + pattern_index(mode, t), value, target);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) gshmem_quiet();  // after the __syncthreads: every thread's p (Q3)
}

cudaError_t launch_p_pattern(void *dst, int width, int mode, int target) {
  switch (width) {
    case 8: p_pattern_kernel<<<1, kPatternThreads>>>(static_cast<unsigned long long *>(dst), mode, target); break;
    case 4: p_pattern_kernel<<<1, kPatternThreads>>>(static_cast<unsigned int *>(dst), mode, target); break;
    case 2: p_pattern_kernel<<<1, kPatternThreads>>>(static_cast<unsigned short *>(dst), mode, target); break;
    default: p_pattern_kernel<<<1, kPatternThreads>>>(static_cast<unsigned char *>(dst), mode, target); break;
  }
  return cudaGetLastError();
}

cudaError_t launch_p_burst(unsigned long long *dst, int rounds, int target) {
  p_burst_kernel<<<1, kBurstThreads>>>(dst, rounds, target);
  return cudaGetLastError();
}

cudaError_t launch_rma(int *dst, const int *src, int *got, int target) {
  rma_kernel<<<1, kBlockThreads>>>(dst, src, got, target);
  return cudaGetLastError();
}

cudaError_t launch_amo(long long *slots, long long *fetched, long long *olds, int target) {
  amo_kernel<<<1, 1>>>(slots, fetched, target);
  contend_kernel<<<kContendBlocks, kContendThreads>>>(slots, olds, target);
  return cudaGetLastError();
}

cudaError_t launch_litmus(int *msg, const int *src_sym, uint64_t *sig, uint64_t *ack, long long rounds, int me,
                          int target, unsigned long long *violations) {
  litmus_kernel<<<1, 1>>>(msg, src_sym, sig, ack, rounds, me, target, violations);
  return cudaGetLastError();
}

cudaError_t launch_barrier(int *slot, int rounds, int target, unsigned long long *violations) {
  barrier_kernel<<<1, 32>>>(slot, rounds, target, violations);
  return cudaGetLastError();
}

}  // namespace remote_gpu
