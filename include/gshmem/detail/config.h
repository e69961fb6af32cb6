// Compiler plumbing shared by every public header. Nothing here is API.
#pragma once

#if defined(__CUDACC__)
#  define GSHMEM_HD __host__ __device__ __forceinline__
#  define GSHMEM_DEVICE __device__ __forceinline__
#  define GSHMEM_DEVICE_NOINLINE __device__ __noinline__
// constexpr helpers usable from host and device code alike.
#  define GSHMEM_HD_CONSTEXPR __host__ __device__ constexpr
#else
#  define GSHMEM_HD inline
#  define GSHMEM_HD_CONSTEXPR constexpr
#endif

// GSHMEM_DEVICE_REMOTE: whether the device routines carry their branch to
// remote peers (docs/remote.md): 1 (default) or 0. Set to 0 (-DGSHMEM_DEVICE_REMOTE=0,
// or a #define before the first gshmem header) in a translation unit whose
// kernels only ever reach P2P peers (one node): its kernels then hold no
// remote code, and a remote target ends in the routine's diagnostic
// instead. A branch with loops in it, even one never taken, makes ptxas put
// YIELD and convergence barriers into the kernel's other loops, the polls
// included (see docs/remote.md, "Cost on the P2P path"). Per translation
// unit: units built either way link and run together.
#ifndef GSHMEM_DEVICE_REMOTE
#  define GSHMEM_DEVICE_REMOTE 1
#endif

// True while compiling device code (the device pass of nvcc).
#if defined(__CUDA_ARCH__)
#  define GSHMEM_IN_DEVICE_CODE 1
#else
#  define GSHMEM_IN_DEVICE_CODE 0
#endif

#if defined(__cplusplus)
// An opaque copy of an 8-byte value (a size, a pointer): the compiler cannot
// know it equals the input, so nothing a routine computes from it can be
// hoisted above this point, out of a caller's loop, and kept live across
// that loop in registers that count towards the caller's kernel. A routine
// launders the argument all its setup depends on (an array length) at
// entry. Device: an empty asm volatile (no instruction); host: v itself.
template <class T>
GSHMEM_HD T gshmemi_opaque(T v) {
  static_assert(sizeof(T) == 8, "8-byte values");
#if GSHMEM_IN_DEVICE_CODE
  unsigned long long u;
  __builtin_memcpy(&u, &v, 8);
  asm volatile("" : "+l"(u));
  __builtin_memcpy(&v, &u, 8);
#endif
  return v;
}
#endif

#if defined(__cplusplus)
#  define GSHMEM_EXTERN_C extern "C"
#  define GSHMEM_BEGIN_EXTERN_C extern "C" {
#  define GSHMEM_END_EXTERN_C }
#else
#  define GSHMEM_EXTERN_C
#  define GSHMEM_BEGIN_EXTERN_C
#  define GSHMEM_END_EXTERN_C
#endif

#if defined(GSHMEM_BUILDING_LIBRARY)
#  define GSHMEM_API __attribute__((visibility("default")))
#else
#  define GSHMEM_API
#endif
