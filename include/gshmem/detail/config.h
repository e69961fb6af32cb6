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

// True while compiling device code (the device pass of nvcc).
#if defined(__CUDA_ARCH__)
#  define GSHMEM_IN_DEVICE_CODE 1
#else
#  define GSHMEM_IN_DEVICE_CODE 0
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
