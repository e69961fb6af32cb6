// Atomics x type through their public C names (and one C++ call), one
// thread: the standard, bitwise and floating-point tables.
#include "update_gpu_kernels.h"

#include <gshmem/update_ext.h>

#include <math.h>

using gshmem::memory_order;
using gshmem::thread_scope;

namespace update_gpu {
namespace {

#define AMO_COMMON(NAME, TYPE)                                                                       \
  out[A_FETCH] = gshmem_##NAME##_atomic_fetch(dst + A_FETCH, target);                                \
  gshmem_##NAME##_atomic_set(dst + A_SET, (TYPE)42, target);                                         \
  out[A_SWAP] = gshmem_##NAME##_atomic_swap(dst + A_SWAP, (TYPE)43, target);                         \
  out[A_CAS_OK] = gshmem_##NAME##_atomic_compare_swap(dst + A_CAS_OK, (TYPE)10, (TYPE)44, target);   \
  out[A_CAS_NO] = gshmem_##NAME##_atomic_compare_swap(dst + A_CAS_NO, (TYPE)99, (TYPE)45, target);   \
  out[A_FSUB] = gshmemx_##NAME##_atomic_fetch_sub(dst + A_FSUB, (TYPE)3, target);                    \
  gshmemx_##NAME##_atomic_sub(dst + A_SUB, (TYPE)4, target);                                         \
  out[A_FMAX] = gshmemx_##NAME##_atomic_fetch_max(dst + A_FMAX, (TYPE)50, target);                   \
  gshmemx_##NAME##_atomic_max(dst + A_MAX, (TYPE)5, target);                                         \
  out[A_FMIN] = gshmemx_##NAME##_atomic_fetch_min(dst + A_FMIN, (TYPE)2, target);                    \
  gshmemx_##NAME##_atomic_min(dst + A_MIN, (TYPE)50, target);                                        \
  out[A_CXX] = gshmem::atomic_exchange<memory_order::acq_rel>(dst + A_CXX, (TYPE)46, target);

#define AMO_KERNEL(NAME, TYPE)                                                                       \
  __global__ void amo_kernel_##NAME(TYPE *dst, TYPE *out, int target) {                              \
    AMO_COMMON(NAME, TYPE)                                                                           \
    out[A_FINC] = gshmem_##NAME##_atomic_fetch_inc(dst + A_FINC, target);                            \
    gshmem_##NAME##_atomic_inc(dst + A_INC, target);                                                 \
    out[A_FADD] = gshmem_##NAME##_atomic_fetch_add(dst + A_FADD, (TYPE)5, target);                   \
    gshmem_##NAME##_atomic_add(dst + A_ADD, (TYPE)6, target);                                        \
    gshmem_quiet();                                                                                  \
  }
GSHMEM_FOR_EACH_AMO_TYPE(AMO_KERNEL)
#undef AMO_KERNEL

#define AMO_BITWISE_KERNEL(NAME, TYPE)                                                               \
  __global__ void amo_bitwise_kernel_##NAME(TYPE *dst, TYPE *out, int target) {                      \
    out[A_FAND] = gshmem_##NAME##_atomic_fetch_and(dst + A_FAND, (TYPE)6, target);                   \
    gshmem_##NAME##_atomic_and(dst + A_AND, (TYPE)3, target);                                        \
    out[A_FOR] = gshmem_##NAME##_atomic_fetch_or(dst + A_FOR, (TYPE)16, target);                     \
    gshmem_##NAME##_atomic_or(dst + A_OR, (TYPE)32, target);                                         \
    out[A_FXOR] = gshmem_##NAME##_atomic_fetch_xor(dst + A_FXOR, (TYPE)15, target);                  \
    gshmem_##NAME##_atomic_xor(dst + A_XOR, (TYPE)1, target);                                        \
    gshmem_quiet();                                                                                  \
  }
GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(AMO_BITWISE_KERNEL)
#undef AMO_BITWISE_KERNEL

#define AMO_FLOAT_KERNEL(NAME, TYPE)                                                                 \
  __global__ void amo_float_kernel_##NAME(TYPE *dst, TYPE *out, int target) {                        \
    AMO_COMMON(NAME, TYPE)                                                                           \
    out[A_FNANMAX] = gshmemx_##NAME##_atomic_fetch_nanmax(dst + A_FNANMAX, (TYPE)7, target);         \
    gshmemx_##NAME##_atomic_nanmax(dst + A_NANMAX, (TYPE)NAN, target);                             \
    out[A_FNANMIN] = gshmemx_##NAME##_atomic_fetch_nanmin(dst + A_FNANMIN, -(TYPE)0, target);        \
    gshmemx_##NAME##_atomic_nanmin(dst + A_NANMIN, (TYPE)-1, target);                                \
    out[A_FADDF] = gshmemx_##NAME##_atomic_fetch_add(dst + A_FADDF, (TYPE)0.5, target);              \
    gshmemx_##NAME##_atomic_add(dst + A_ADDF, (TYPE)-1.5, target);                                   \
    gshmemx_##NAME##_atomic_max(dst + A_MAXNAN, (TYPE)NAN, target);                                  \
    gshmemx_##NAME##_atomic_min(dst + A_MINNAN, (TYPE)NAN, target);                                  \
    gshmem_quiet();                                                                                  \
  }
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(AMO_FLOAT_KERNEL)
#undef AMO_FLOAT_KERNEL
#undef AMO_COMMON

}  // namespace

#define AMO_LAUNCH(NAME, TYPE)                                                                       \
  cudaError_t launch_amo_##NAME(TYPE *dst, TYPE *out, int target) {                                  \
    amo_kernel_##NAME<<<1, 1>>>(dst, out, target);                                                   \
    return cudaGetLastError();                                                                       \
  }
#define AMO_BITWISE_LAUNCH(NAME, TYPE)                                                               \
  cudaError_t launch_amo_bitwise_##NAME(TYPE *dst, TYPE *out, int target) {                          \
    amo_bitwise_kernel_##NAME<<<1, 1>>>(dst, out, target);                                           \
    return cudaGetLastError();                                                                       \
  }
#define AMO_FLOAT_LAUNCH(NAME, TYPE)                                                                 \
  cudaError_t launch_amo_float_##NAME(TYPE *dst, TYPE *out, int target) {                            \
    amo_float_kernel_##NAME<<<1, 1>>>(dst, out, target);                                             \
    return cudaGetLastError();                                                                       \
  }
GSHMEM_FOR_EACH_AMO_TYPE(AMO_LAUNCH)
GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(AMO_BITWISE_LAUNCH)
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(AMO_FLOAT_LAUNCH)
#undef AMO_LAUNCH
#undef AMO_BITWISE_LAUNCH
#undef AMO_FLOAT_LAUNCH

}  // namespace update_gpu
